#include "ui/shell/lesson_library.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "core/base/errors.h"

// Outside any namespace, as Q_INIT_RESOURCE requires.
static void initLessonResources() { Q_INIT_RESOURCE(lessons); }

namespace attnlab::ui {

QStringList builtinLessonFiles() {
  static const bool initialised = (initLessonResources(), true);
  Q_UNUSED(initialised);
  QStringList files;
  for (const QString& name : QDir(":/lessons").entryList({"*.json"}, QDir::Files, QDir::Name))
    files << ":/lessons/" + name;
  return files;
}

Lesson loadLessonFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) throw InputError("cannot read the lesson '" + path.toStdString() + "'");
  return lessonFromText(f.readAll().toStdString(), QFileInfo(path).fileName().toStdString());
}

}  // namespace attnlab::ui
