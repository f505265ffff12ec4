#pragma once
// How figures look, stored with the parameters so that a session re-creates a figure exactly
// (params JSON "display": {"colormap": "viridis", "theme": "light", "attention_scale": "unit"}).
#include <string>
#include <vector>

namespace attnlab {

struct DisplaySettings {
  std::string colormap = "viridis";  ///< sequential map for weights: viridis, cividis, magma; or diverging
  std::string theme = "light";       ///< light or dark
  /// Colour range of attention weights: "unit" 0–1 for every map (comparable at a glance: uniform
  /// 1/9 is always the same dark colour), "per-map" 0 to each map's own maximum, "shared" 0 to the
  /// maximum over the maps shown together (a model grid), "row" each row (query) to its own maximum (a
  /// long causal map, whose weights near 1/n are all dark on 0–1 and whose row 0 is always 1), "log"
  /// log₁₀ of the weight from a floor of 10⁻³ or below (ui/plots/attention_scale.h). Signed values keep
  /// their symmetric range.
  std::string attentionScale = "unit";
};

/// Accepted names, in menu order.
const std::vector<std::string>& colormapNames();
const std::vector<std::string>& themeNames();
const std::vector<std::string>& attentionScaleNames();

/// Throws InputError naming the field, e.g. "display.colormap is 'jet' (use viridis, cividis, magma or
/// diverging)".
void validate(const DisplaySettings& d);

}  // namespace attnlab
