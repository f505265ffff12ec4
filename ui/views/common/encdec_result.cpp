#include "ui/views/common/encdec_result.h"

#include <QCoreApplication>

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
  const EncDecRun* run = encDecRunOf(r);
  if (!run) return {};
  if (r.params.selection.stack == "cross") return "cross";  // a view of the cross-attention's heads
  return run->isDecoderSide() ? QCoreApplication::translate("EncDec", " · decoder")
                              : QCoreApplication::translate("EncDec", " · encoder");
}

std::string ablationStack(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  if (!run) return {};
  return run->isDecoderSide() ? "decoder" : "encoder";
}

}  // namespace attnlab::ui
