#pragma once
// The rank-collapse experiment of seeds/002 (the paper's Figure 2): every selected configuration run
// from several seeds on the same weights, the relative residual ‖res(X_l)‖/‖X_l‖ per depth
// aggregated as median, min and max over the seeds, and a one-line reading for the classroom.
// Also the inspector's data at one depth (X_l, its token similarities and singular values, the
// layer's attention).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/collapse/deep_stack.h"
#include "core/session/params.h"

namespace attnlab {

/// Below this relative residual the tokens count as one vector ("rank 1") in the readings.
inline constexpr double kCollapseThreshold = 1e-6;

struct CollapseCurve {
  StackConfig config = StackConfig::San;
  /// Per depth 0 … validDepth (shorter than depth + 1 when a seed stopped early).
  std::vector<double> median, min, max;
  std::vector<std::vector<double>> perSeed;  ///< each seed's residuals, as far as it got
  int stoppedAt = -1;                        ///< first depth where some seed left the safe range; −1 when complete
  std::string stopReason;                    ///< see StackRun::stopReason
  int stoppedSeed = -1;                      ///< the seed index that stopped first

  int validDepth() const { return static_cast<int>(median.size()) - 1; }
};

struct CollapseResult {
  CollapseSettings settings;
  std::vector<std::string> tokens;    ///< token labels (words in sentence mode, "t0", "t1", … otherwise)
  std::vector<CollapseCurve> curves;  ///< in the order of settings.configs
  std::string reading;                ///< one line for the classroom
  std::vector<std::string> readings;  ///< one per configuration
  double elapsedMs = 0;
};

/// The inputs the experiment runs from, for seed index s: random N(0, 1) rows or the embeddings of
/// the sentence (built-in hashing embeddings at collapse.d_model, with the model's position kind and
/// seed). Throws InputError for an empty sentence in sentence mode.
MatD collapseInput(const Params& p, int seedIndex);
/// The seed of the weights of seed index s (the same for every configuration).
uint64_t collapseWeightSeed(const CollapseSettings& s, int seedIndex);
std::vector<std::string> collapseTokenLabels(const Params& p);

/// Runs every configuration of p.collapse from every seed (in parallel over runs), aggregates.
/// Throws InputError (invalid settings, unknown variant) and Cancelled.
CollapseResult runCollapse(const Params& p, const RunControl& control = {});

/// Median, min and max over seeds at each depth up to the shortest run; marks where runs stopped.
CollapseCurve aggregateRuns(StackConfig c, const std::vector<StackRun>& runs);

/// "pure attention: rank 1 after 3 layers", "attention + skip: still 0.41 at layer 32", …
std::string readCurve(const CollapseCurve& curve, int depth);
/// The one line: the first configuration's reading, plus the first one that behaves differently.
std::string oneLineReading(const std::vector<CollapseCurve>& curves, int depth);

/// What the inspector shows at one depth of one configuration (seed index 0).
struct LayerInspection {
  StackConfig config = StackConfig::San;
  int depth = 0;                ///< the depth shown (clamped to where the run got)
  MatD state;                   ///< X_depth  [n, d]
  MatD cosine;                  ///< token cosine similarities of X_depth  [n, n]
  VecD singular;                ///< singular values of X_depth, largest first
  std::vector<MatD> attention;  ///< the heads of layer `depth` (producing X_depth); layer 1's for depth 0
  int attentionLayer = 1;       ///< which layer `attention` belongs to (1-based)
  double residual = 0;
  std::vector<std::string> tokens;
};
LayerInspection inspectCollapse(const Params& p, const RunControl& control = {});

/// {"depths": [0..L], "configs": {"san": {"median": [...], "min": [...], "max": [...], "stopped_at": …}},
///  "reading": "…", "settings": {…}}; depths past a stop are null in the arrays.
nlohmann::json collapseToJson(const CollapseResult& r);

}  // namespace attnlab
