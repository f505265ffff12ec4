#include "ui/views/common/encdec_result.h"

#include <QCoreApplication>

#include "core/checkpoint/encdec_config.h"

namespace attnlab::ui {

ResultPtr shownStack(const ResultPtr& r) {
  if (!r || !r->ok() || !r->run->encdec || r->params.selection.stack != "encoder") return r;
  auto side = std::make_shared<ComputeResult>(*r);
  side->run = r->run->encdec->encoderSide;
  return side;
}

const EncDecRun* encDecRunOf(const ComputeResult& r) {
  if (!r.ok()) return nullptr;
  if (r.run->encdec) return r.run->encdec.get();
  return nullptr;
}

QString stackTag(const ComputeResult& r) {
  if (!r.ok()) return {};
  // The encoder's side carries no EncDecRun of its own: it is known by its model's name.
  const std::string& name = r.run->info.name;
  const auto endsWith = [&](const char* s) {
    const std::string t(s);
    return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
  };
  if (r.run->encdec) return QCoreApplication::translate("EncDec", " · decoder (target)");
  if (endsWith(" · encoder") && isEncoderDecoderType(r.run->info.kind))
    return QCoreApplication::translate("EncDec", " · encoder (source)");
  return {};
}

}  // namespace attnlab::ui
