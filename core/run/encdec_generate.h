#pragma once
// Generate N for an encoder–decoder (issue 33): the next target tokens after a target, greedy or sampled with the
// one-text Generate's sampler (chooseToken, core/model/generate.h), on one EncDecDecodeSession — the encoder runs
// once and each decoder layer's cross K/V are made once; each token is one cached decoder step. The decoder reads
// decoder_start_token_id, the target's tokens (tokenizeTarget), then each generated id, as `attnlab generate --source
// … --steps N` does: same model, source, options and seed → the same ids.
#include <functional>
#include <string>
#include <vector>

#include "core/model/generate.h"
#include "core/run/encdec_run.h"

namespace attnlab {

struct TargetGeneration {
  std::vector<GeneratedToken> tokens;  ///< in order; GeneratedToken::piece is the target vocabulary's piece
  bool endOfText = false;              ///< the last token is eos_token_id: the translation ended there
};

/// Tokens the target may still grow by before the decoder's input (start token + target tokens) fills the model's
/// positions (its pending ids count); 0 when it is full. Throws InputError for a target that is not valid UTF-8.
int targetRoom(const EncDecFolderModel& model, const TargetText& target);

/// Up to `steps` target tokens after `target` (its text's tokens, then its pending ids) for `source`; stops after eos
/// (reported, endOfText). `onToken` sees each token as it is made (on the caller's thread). Throws InputError for what
/// runEncDecPipeline refuses in the source (empty, invalid UTF-8, longer than the positions), for steps < 1, for bad
/// sampling options and when the target plus `steps` tokens passes the positions (both lengths named); Cancelled
/// between steps. `ablation` (heads switched off, as the shown run's): when not empty the cache is not used (the decode
/// session has no ablations); each step runs EncDecModel::forward(source, decoder input so far, ablation) and chooses
/// from its last row, which is what Next token gives step after step. Mean ablation then averages over the target rows
/// present at that step. Empty: the cached path. Throws InputError for what forward refuses (a head the stack lacks).
TargetGeneration generateTarget(const EncDecFolderModel& model, const std::string& source, const TargetText& target,
                                int steps, const SamplingOptions& options, const RunControl& control = {},
                                const std::function<void(const GeneratedToken&)>& onToken = {},
                                const EncDecAblation& ablation = {});

/// The decoding loop of generateTarget on ids, also `attnlab generate --source`'s (which may have ids and no
/// tokenizer): up to `steps` tokens after decoder input `input` (start token first) for `source` ids, each chosen by
/// chooseToken after the folder's generation rules (the model's length limit: `steps` counts steps, it is not
/// transformers' max_new_tokens); stops after eos. Cached session without `ablation`, else the full ablated pass each
/// step (as generateTarget says). `pieceOf` names each token (GeneratedToken::piece). The caller checks the texts and
/// the positions; throws InputError for non-finite logits, bad sampling options and what forward refuses.
TargetGeneration generateIds(const EncDecModel& model, const std::vector<int>& source, const std::vector<int>& input,
                             int steps, const SamplingOptions& options, const RunControl& control,
                             const std::function<std::string(int)>& pieceOf,
                             const std::function<void(const GeneratedToken&)>& onToken = {},
                             const EncDecAblation& ablation = {});

}  // namespace attnlab
