#pragma once
// The Prediction chapter's choices (issue 16), stored with the parameters so a session re-creates them:
// params JSON "prediction": {"temperature": 1, "top_k": 0, "top_p": 1, "greedy": true, "seed": 1,
//   "generate_steps": 8, "target": "", "versus": "", "ablate": ["9.6", "9.9"], "ablation_mode": "zero",
//   "resample_text": "", "clean": "...", "corrupt": "...", "patch_target": " Mary", "patch_versus": " John",
//   "ablate_encoder": [], "ablate_cross": []}  (the last two: an encoder–decoder's, issue 33; absent in older files).
// Token fields hold what the user typed: a vocabulary piece ("Ġmat"), a decimal id, or text that the
// model's tokenizer makes into one token (" mat"); empty target = the model's prediction.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/intervention.h"

namespace attnlab {

struct PredictionSettings {
  // Sampling: what the Prediction view marks as kept, and what Generate draws from.
  double temperature = 1.0;  ///< > 0
  int topK = 0;              ///< 0 = no top-k filter
  double topP = 1.0;         ///< (0, 1]; 1 = no nucleus filter
  bool greedy = true;        ///< Generate takes the most probable token; else samples with `seed`
  uint64_t seed = 1;
  int generateSteps = 8;  ///< "Generate N": 1–512

  // Direct logit attribution: the token whose logit is split over the heads, and an optional second one.
  std::string target, versus;

  /// Heads switched off in the forward pass every view draws (the model stays as it is on disk). For an
  /// encoder–decoder: the decoder's self-attention heads; ablateEncoder the encoder's self-attention, ablateCross the
  /// decoder's cross-attention (layer.head of the decoder). Zero and mean only there.
  std::vector<HeadRef> ablate;
  std::vector<HeadRef> ablateEncoder, ablateCross;
  AblationMode ablationMode = AblationMode::Zero;
  /// Resample mode: the text whose run gives the ablated heads' outputs (the pipeline runs it through the same model;
  /// it needs at least as many tokens as the sentence). Kept, unused, under the other modes.
  std::string resampleText;

  // Activation patching: two texts of the same token length and the logit difference they move.
  std::string clean = "When Mary and John went to the store, John gave a drink to";
  std::string corrupt = "When Mary and John went to the store, Mary gave a drink to";
  std::string patchTarget = " Mary", patchVersus = " John";
};

nlohmann::json toJson(const PredictionSettings& s);
/// Reads the "prediction" object over `out`; absent fields keep their values. Throws InputError naming
/// the field ("params: prediction.temperature must be > 0").
void readPredictionSettings(const nlohmann::json& j, PredictionSettings& out);
/// Throws InputError naming the first field out of range.
void validate(const PredictionSettings& s);

/// The list of heads switched off in one attention: `stack` "encoder" → ablateEncoder, "cross" → ablateCross, anything
/// else (a single-text model's "", an encoder–decoder's "decoder") → ablate.
std::vector<HeadRef>& ablatedHeads(PredictionSettings& s, const std::string& stack = {});
const std::vector<HeadRef>& ablatedHeads(const PredictionSettings& s, const std::string& stack = {});
/// Whether any head of any attention is switched off.
bool anyAblated(const PredictionSettings& s);
/// Adds the head when absent, removes it when present; keeps the list sorted (layer, then head).
void toggleAblation(PredictionSettings& s, HeadRef head, const std::string& stack = {});
bool isAblated(const PredictionSettings& s, HeadRef head, const std::string& stack = {});

}  // namespace attnlab
