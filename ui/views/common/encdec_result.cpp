#include "ui/views/common/encdec_result.h"

#include <QCoreApplication>
#include <algorithm>

namespace attnlab::ui {
namespace {

/// The vocabulary's pieces of a text's ids, as a reader sees them ("▁the" → "·the"); the built-in rung 7 (no
/// tokenizer, no ids, `tokenizer` null): its words.
QStringList labelsOf(const TokenizedText& t, const TextTokenizer* tokenizer) {
  QStringList out;
  if (!tokenizer) {
    for (const Token& tok : t.tokens) out << QString::fromStdString(tok.text);
    return out;
  }
  for (int id : t.ids) out << pieceLabel(tokenizer->pieceOf(id), "metaspace");
  return out;
}

}  // namespace

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
  if (showsCross(r)) return QCoreApplication::translate("EncDec", " · cross");
  return run->isDecoderSide() ? QCoreApplication::translate("EncDec", " · decoder")
                              : QCoreApplication::translate("EncDec", " · encoder");
}

std::string ablationStack(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  if (!run) return {};
  if (showsCross(r)) return "cross";  // the cross-attention's heads (prediction.ablate_cross)
  return run->isDecoderSide() ? "decoder" : "encoder";
}

bool showsCross(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  return run && run->isDecoderSide() && r.params.selection.stack == "cross" && run->trace && !run->trace->cross.empty();
}

const std::vector<CrossLayerTrace>* crossLayersOf(const ComputeResult& r) {
  return showsCross(r) ? &encDecRunOf(r)->trace->cross : nullptr;
}

const HeadTrace* crossHead(const ComputeResult& r, int l, int h) {
  const auto* cross = crossLayersOf(r);
  if (!cross) return nullptr;
  const auto& layer = (*cross)[static_cast<std::size_t>(std::clamp(l, 0, static_cast<int>(cross->size()) - 1))];
  if (layer.heads.empty()) return nullptr;
  return &layer.heads[static_cast<std::size_t>(std::clamp(h, 0, static_cast<int>(layer.heads.size()) - 1))];
}

QStringList crossSources(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  if (!run) return {};
  const EncDecFolderModel* folder = run->model->folder();
  return labelsOf(run->source, folder ? &folder->sourceTokenizer() : nullptr);
}

QStringList crossTargets(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  if (!run) return {};
  const EncDecFolderModel* folder = run->model->folder();
  return labelsOf(run->target, folder ? &folder->targetTokenizer() : nullptr);
}

QString crossAbsentNote(const ComputeResult& r) {
  if (!showsCross(r)) return {};
  return QCoreApplication::translate("EncDec",
                                     "cross (target × source) in Attention, Model, Head view, Q/K/V, Outputs, "
                                     "Spectrum, Cross-attention; the views that read one stack show the decoder");
}

}  // namespace attnlab::ui
