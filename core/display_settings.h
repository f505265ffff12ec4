#pragma once
// How figures look, stored with the parameters so that a session re-creates a figure exactly
// (params JSON "display": {"colormap": "viridis", "theme": "light"}).
#include <string>
#include <vector>

namespace attnlab {

struct DisplaySettings {
  std::string colormap = "viridis";  ///< sequential map for weights: viridis, cividis, magma; or diverging
  std::string theme = "light";       ///< light or dark
};

/// Accepted names, in menu order.
const std::vector<std::string>& colormapNames();
const std::vector<std::string>& themeNames();

/// Throws InputError naming the field, e.g. "display.colormap is 'jet' (use viridis, cividis, magma or
/// diverging)".
void validate(const DisplaySettings& d);

}  // namespace attnlab
