#include "core/run/pipeline.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/run/encdec_run.h"
#include "core/run/model_factory.h"

namespace attnlab {

PipelineResult runPipeline(const Params& p, std::shared_ptr<const Model> model, const RunControl& control,
                           std::shared_ptr<const PipelineResult> previous) {
  PipelineResult r;
  r.model = model ? std::move(model) : makeModel(p);
  if (auto encdec = std::dynamic_pointer_cast<const TwoTextModel>(r.model))  // two texts (issue 33)
    return runEncDecPipeline(p, std::move(encdec), control, std::move(previous));
  r.info = r.model->info();
  r.text = keepLastTokens(r.model->tokenize(p.sentence), p.keepLastTokens, r.info.maxTokens, *r.model);
  r.intervention = ablationOf(p.prediction);
  const bool sameModel = previous && previous->model == r.model;
  RunControl rest = control;
  if (needsResampleRun(r.intervention)) {
    // An unchanged resample text keeps the last result's run (the same pointer: firstDifferingLayer then sees the
    // same ablation and the layers before the first ablated head are reused); an edited one is run again.
    r.resampleRun = resampleRunFor(*r.model, p.prediction.resampleText, static_cast<int>(r.text.tokens.size()),
                                   p.keepLastTokens, control.part(0, 0.5), sameModel ? previous->resampleRun : nullptr);
    r.intervention.resample = r.resampleRun.get();
    rest = control.part(0.5, 1);
  }
  Intervention iv = r.intervention;
  // Two runs' ablations are the same when their heads, mode and — in resample mode — resample runs are.
  const bool sameAblation = previous && previous->intervention.ablate == iv.ablate &&
                            previous->intervention.mode == iv.mode && previous->intervention.resample == iv.resample;
  if (sameModel && previous->text.ids == r.text.ids) {
    iv.reuse = &previous->trace;
    iv.reuseLayers = firstDifferingLayer(previous->intervention, iv, r.info.layers);
  } else if (sameModel && sameAblation) {
    iv.prefix = &previous->trace;  // an edited text: a long input's unchanged first rows come from the last run
  }
  r.trace = r.model->forward(r.text, rest, iv);
  return r;
}

TokenizedText keepLastTokens(TokenizedText text, int keep, int maxTokens, const Model& model) {
  const std::size_t limit = static_cast<std::size_t>(std::max(0, std::min(keep, maxTokens)));
  const std::size_t n = text.tokens.size();  // the built-in model has words but no ids
  if (keep <= 0 || limit == 0 || n <= limit) return text;
  // A token the tokenizer added (BOS, [CLS]) covers no text; the model expects it first.
  const Token& first = text.tokens.front();
  const bool bos = limit > 1 && ((first.byteBegin == first.byteEnd && !text.ids.empty()) ||
                                 (!text.ids.empty() && model.isReservedToken(text.ids[0])));
  const std::size_t from = n - (bos ? limit - 1 : limit);  // first kept token after the BOS
  // The kept tokens must hold some of the text: BERT's "--keep-last 1" ran on [SEP] alone, without a word.
  bool anyText = false;
  for (std::size_t i = from; i < n; ++i) anyText = anyText || text.tokens[i].byteBegin < text.tokens[i].byteEnd;
  if (!anyText) {
    std::size_t trailing = 0;  // the tokenizer's own tokens at the end ([SEP], </s>): they cover no text
    while (trailing < n && text.tokens[n - 1 - trailing].byteBegin == text.tokens[n - 1 - trailing].byteEnd) ++trailing;
    const bool leading = first.byteBegin == first.byteEnd && !text.ids.empty();
    throw InputError("keeping the last " + std::to_string(limit) + " token" + (limit > 1 ? "s" : "") +
                     " leaves no text, only the tokenizer's own tokens (\"" + text.tokens.back().text +
                     "\"): keep at least " + std::to_string(trailing + (leading ? 1 : 0) + 1));
  }
  const auto cut = [&](auto& v) { v.erase(v.begin() + (bos ? 1 : 0), v.begin() + static_cast<std::ptrdiff_t>(from)); };
  cut(text.tokens);
  if (!text.ids.empty()) cut(text.ids);
  return text;
}

Intervention ablationOf(const PredictionSettings& s) {
  Intervention iv;
  iv.ablate = s.ablate;
  iv.mode = s.ablationMode;
  return iv;
}

bool needsResampleRun(const Intervention& iv) { return iv.mode == AblationMode::Resample && !iv.ablate.empty(); }

TokenizedText resampleTokens(const Model& model, const std::string& text, int tokens, int keep,
                             const std::string& what) {
  if (text.empty())
    throw InputError(
        "resample ablation needs a resample text, whose run gives the ablated heads' outputs: it is empty (type one, "
        "or use zero or mean ablation)");
  TokenizedText t = keepLastTokens(model.tokenize(text), keep, model.info().maxTokens, model);
  const int n = static_cast<int>(t.tokens.size());
  if (n < tokens)
    throw InputError("resample ablation: the resample text has " + std::to_string(n) + " token" + (n == 1 ? "" : "s") +
                     ", fewer than " + what + " " + std::to_string(tokens) +
                     " (position i takes the heads' outputs at position i of the resample text: make it at least as "
                     "long)");
  return t;
}

std::shared_ptr<const Trace> resampleRunFor(const Model& model, const std::string& text, int tokens, int keep,
                                            const RunControl& control, std::shared_ptr<const Trace> reuse,
                                            const std::string& what) {
  const TokenizedText t = resampleTokens(model, text, tokens, keep, what);
  if (reuse && !t.ids.empty() && reuse->tokenIds == t.ids) return reuse;  // the same tokens: the same run
  try {
    return std::make_shared<const Trace>(model.forward(t, control));
  } catch (const InputError& e) {
    throw InputError(std::string("resample text: ") + e.what());
  }
}

void checkSelection(const Params& p, const Trace& t) {
  if (p.selection.layer < 0 || p.selection.layer >= t.layerCount())
    throw InputError("layer " + std::to_string(p.selection.layer) + " does not exist: the model has " +
                     std::to_string(t.layerCount()) + " layers (0-based)");
  if (p.selection.head < 0 || p.selection.head >= t.headCount())
    throw InputError("head " + std::to_string(p.selection.head) + " does not exist: layer " +
                     std::to_string(p.selection.layer) + " has " + std::to_string(t.headCount()) + " heads (0-based)");
}

}  // namespace attnlab
