#include "ui/shell/session_io.h"

#include <QFile>
#include <QFileInfo>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "core/session/params_keys.h"
#include "core/session/session.h"
#include "ui/plots/figure_export.h"

namespace attnlab::ui {

QString sessionFileFilter() { return QObject::tr("Attention Lab sessions (*.attnlab.json *.json);;All files (*)"); }

QString saveSessionFile(const QString& path, const Params& p) {
  return writeFileBytes(path, sessionToJson(p).dump(2) + "\n");  // the old file stays on failure
}

std::optional<Params> loadSessionFile(const QString& path, QString* error, QString* warning) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    *error = QObject::tr("Cannot open '%1': %2").arg(path, f.errorString());
    return std::nullopt;
  }
  if (f.size() > 64 * 1024 * 1024) {
    *error = QObject::tr("'%1' is too large to be a session (%2 bytes)").arg(path).arg(f.size());
    return std::nullopt;
  }
  try {
    const std::string name = QFileInfo(path).fileName().toStdString();
    const nlohmann::json j = parseJsonText(f.readAll().toStdString(), "'" + name + "'");
    Params p = sessionFromJson(j);
    if (warning) {
      const std::string unknown = unknownKeysMessage(unknownParamsKeys(j));
      *warning =
          unknown.empty()
              ? QString()
              : QObject::tr("Opened '%1' with its %2").arg(QFileInfo(path).fileName(), QString::fromStdString(unknown));
    }
    return p;
  } catch (const InputError& e) {
    *error = QObject::tr("Cannot open the session '%1': %2")
                 .arg(QFileInfo(path).fileName(), QString::fromStdString(e.what()));
    return std::nullopt;
  }
}

}  // namespace attnlab::ui
