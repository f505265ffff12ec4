#pragma once
// Next-token generation on a key/value-cached DecodeSession (decode_session.h), greedy or sampled:
//   p = softmax(logits / T) over the whole vocabulary (T = 1 for greedy);
//   greedy: argmax (the lowest id among ties);
//   sampled: keep the top-k ids (k > 0), then the smallest set of the most probable whose mass reaches
//   top-p (p < 1), renormalise, draw with the project's deterministic Rng (core/base/rng.h) from `seed`.
// The reported probability is the token's p before truncation, as `attnlab predict` shows it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/rng.h"
#include "core/model/model.h"

namespace attnlab {

struct SamplingOptions {
  bool greedy = true;
  double temperature = 1.0;  ///< > 0
  std::uint64_t seed = 0;
  int topK = 0;       ///< 0 = the whole vocabulary
  double topP = 1.0;  ///< (0, 1]
};

struct GeneratedToken {
  int step = 0;  ///< 1-based
  int id = 0;
  std::string piece;  ///< the vocabulary string ("Ġcat")
  double prob = 0.0;  ///< softmax(logits / T)[id] over the whole vocabulary
};

/// Chooses the next id from `logits` [vocab]; `prob` receives its probability. Throws InputError for a
/// temperature ≤ 0, a negative top-k or a top-p outside (0, 1].
int chooseToken(const Vec& logits, const SamplingOptions& o, Rng& rng, double* prob);

/// Generates `steps` tokens after `promptIds`, reusing the cache each step. `onToken` (optional) sees each
/// token as it is made. With an intervention (ablated heads), each step runs the whole sequence through
/// forward() with it instead (as do models without a cache): O(n) times slower per token, but the ablated
/// model is the one that writes. Throws InputError (steps ≤ 0, an empty prompt, a model without an unembedding, the
/// prompt plus the steps longer than the model's positions) and Cancelled (between steps).
std::vector<GeneratedToken> generate(const Model& model, const std::vector<int>& promptIds, int steps,
                                     const SamplingOptions& options, const RunControl& control = {},
                                     const std::function<void(const GeneratedToken&)>& onToken = {},
                                     const Intervention& iv = {});

}  // namespace attnlab
