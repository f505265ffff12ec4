#include "core/run/encdec_generate.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

/// The decoder's input for `target`: decoder_start_token_id, then the target's tokens, then its pending ids.
std::vector<int> decoderInput(const EncDecFolderModel& model, const TargetText& target) {
  if (!utf8::isValid(target.text)) throw InputError("the target text is not valid UTF-8");
  return model.tokenizeTarget(target.text, target.pending).ids;
}

}  // namespace

int targetRoom(const EncDecFolderModel& model, const TargetText& target) {
  const int limit = model.model().config().maxPositions;
  const int used = static_cast<int>(decoderInput(model, target).size());
  return limit > 0 ? std::max(0, limit - used) : 1 << 20;
}

TargetGeneration generateTarget(const EncDecFolderModel& model, const std::string& source, const TargetText& target,
                                int steps, const SamplingOptions& options, const RunControl& control,
                                const std::function<void(const GeneratedToken&)>& onToken,
                                const EncDecAblation& ablation) {
  if (steps <= 0) throw InputError("the number of steps must be at least 1 (got " + std::to_string(steps) + ")");
  const TokenizedText src = checkedSource(model, source);
  const std::vector<int> input = decoderInput(model, target);
  const EncDecConfig& c = model.model().config();
  // Each generated token becomes one more decoder position when the target is read again (the views' run).
  if (c.maxPositions > 0 && static_cast<long long>(input.size()) + steps > c.maxPositions)
    throw InputError("the target has " + std::to_string(input.size()) + " tokens with the decoder's start token; " +
                     std::to_string(steps) + " more pass the model's " + std::to_string(c.maxPositions) + " positions" +
                     (static_cast<int>(input.size()) >= c.maxPositions ? ": there is no room for another token" : ""));
  return generateIds(
      model.model(), src.ids, input, steps, options, control,
      [&model](int id) { return model.targetTokenizer().pieceOf(id); }, onToken, ablation);
}

TargetGeneration generateIds(const EncDecModel& model, const std::vector<int>& source, const std::vector<int>& input,
                             int steps, const SamplingOptions& options, const RunControl& control,
                             const std::function<std::string(int)>& pieceOf,
                             const std::function<void(const GeneratedToken&)>& onToken,
                             const EncDecAblation& ablation) {
  const EncDecConfig& c = model.config();
  Rng rng(options.seed);  // chooseToken refuses bad options at the first step, before any token is made
  control.checkpoint(0.0);
  // Without ablations: one cached session (cross K/V made once, one decoder step per token). With them: the full
  // ablated pass over the decoder input so far each step, its last row (mean ablation: the mean over the rows present
  // at that step, as the views' run of that target computes it).
  const bool cached = ablation.empty();
  std::unique_ptr<EncDecDecodeSession> session;
  std::vector<int> ids = input;
  Vec logits;
  const auto next = [&](int id) {
    if (cached) return session->step(id);
    if (id >= 0) ids.push_back(id);
    const EncDecTrace t = model.forward(source, ids, true, ablation);
    return Vec(t.logits.row(t.logits.rows() - 1).transpose());
  };
  if (cached) {
    session = model.startDecoding(source);
    for (int id : input) logits = next(id);
  } else {
    logits = next(-1);
  }
  const int lengthLimit = generationLengthLimit(c.generation, c.maxPositions, 0);
  TargetGeneration out;
  for (int s = 1; s <= steps; ++s) {
    control.checkpoint(static_cast<double>(s - 1) / steps);
    if (!logits.allFinite())
      throw InputError("the decoder's logits are not finite: the model's weights overflow float32 on this text");
    // The folder's generation rules before the sampler, as transformers applies its processors before its warpers;
    // the length limit is the model's (a Generate N continues a text: N is not transformers' max_new_tokens).
    applyGenerationRules(c.generation, ids, c.eosId, lengthLimit, logits);
    GeneratedToken t;
    t.step = s;
    t.id = chooseToken(logits, options, rng, &t.prob);
    t.piece = pieceOf(t.id);
    out.tokens.push_back(t);
    out.endOfText = t.id == c.eosId;
    if (onToken) onToken(t);
    if (out.endOfText || s == steps) break;
    if (cached) ids.push_back(t.id);  // the uncached next() appends it itself
    logits = next(t.id);
  }
  control.checkpoint(1.0);
  return out;
}

}  // namespace attnlab
