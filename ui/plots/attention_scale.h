#pragma once
// How attention weights become colour positions t ∈ [0, 1] (Params::display.attentionScale), shared by the
// matrix plot, the zoomable heatmap, the model grid and the similarity map so that they agree cell for cell:
//   unit     t = w                      (0–1 on every map)
//   per-map  t = w / the map's maximum
//   shared   t = w / the largest weight of the maps shown together
//   row      t = w / the largest weight of w's row (each query to its own maximum; a zero row stays 0)
//   log      t = (log₁₀ max(w, f) − log₁₀ f) / (−log₁₀ f), f = logFloor(n): f and below the darkest colour.
// A long causal map is blank on 0–1 (weights near 1/n) and on per-map (row 0 is always 1): row and log show it.
#include <QString>
#include <algorithm>
#include <cmath>

#include "core/base/tensor.h"

namespace attnlab::ui {

enum class AttentionScale { Unit, PerMap, Shared, Row, Log };

/// The log scale's floor for a map of n keys: 10^−max(3, ⌈log₁₀ n⌉ + 1), a decade below 1/(10 n) at most,
/// so that uniform weights 1/n sit well above the darkest colour (n = 8,192: 10⁻⁵, 1/n at t ≈ 0.22).
double logFloor(int n);
/// The log scale's t for weight w (NaN and weights ≤ floor: 0; ≥ 1: 1). Inline: the heatmap calls it per pixel.
inline double logPosition(double w, double floor) {
  if (!(w > floor)) return 0;  // NaN too
  const double lf = std::log10(floor);
  return std::min(1.0, (std::log10(w) - lf) / -lf);
}
/// Every row of `a` divided by its largest entry (rows whose largest entry is ≤ 0 stay as they are). With
/// skipDiagonal, the largest entry off the diagonal (a similarity map's diagonal is always 1): the diagonal
/// then reads above 1 and takes the top colour.
Mat rowNormalised(const Mat& a, bool skipDiagonal = false);

/// What the colour bar of a weight map says: "weight", "weight ÷ own max", "weight ÷ shared max",
/// "weight ÷ row max", "weight (log)".
QString attentionScaleBarLabel(AttentionScale scale);
/// The note a title carries for the scale (empty for unit, whose bar reads 0 to 1): e.g. " · rows to their max",
/// " · log colours".
QString attentionScaleTitleNote(AttentionScale scale);
/// A decade as a tick label: 1, 0.1, 0.01, then 10⁻³, 10⁻⁴ … (superscript digits).
QString decadeLabel(int exponent);

}  // namespace attnlab::ui
