#pragma once
// The pixel loop of ZoomableHeatmap (ui/plots/zoomable_heatmap.h): which cells of a pyramid level each
// screen pixel covers, and the picture of a rectangle of pixels, each the max or mean of its cells.
#include <Eigen/Core>
#include <QImage>
#include <algorithm>
#include <vector>

#include "ui/plots/attention_scale.h"

namespace attnlab::ui {

/// A level's cells as the renderer reads them: `data` holds rows [r0, …) and columns [c0, …) of the
/// level, `stride` floats apart.
struct LevelSource {
  const float* data = nullptr;
  Eigen::Index stride = 0;
  int r0 = 0, c0 = 0;
};

/// For each of `pixels` screen pixels along one axis, the level cells [lo, hi] it covers (lo > hi:
/// off the map). `origin`: the map coordinate at pixel 0; `scale`: pixels per map cell; `cell`: map
/// cells per level cell. Zoomed in (a cell ≥ 1 pixel) a pixel takes the cell under its centre, so
/// cells stay crisp blocks.
void pixelRanges(int pixels, double origin, double scale, int cell, int cells, std::vector<int>& lo,
                 std::vector<int>& hi);

/// The colour table's entry for t ∈ [0, 1] (clamped), as renderPixels picks it (inline: once a pixel).
inline QRgb lookup(const std::vector<QRgb>& table, double t) {
  const int top = static_cast<int>(table.size()) - 1;
  return table[static_cast<std::size_t>(std::clamp(static_cast<int>(t * top + 0.5), 0, top))];
}

/// What renderPixels draws: the pixel → level-cell ranges of both axes and the colours.
struct PixelJob {
  LevelSource src;
  std::vector<int> rowLo, rowHi, colLo, colHi;
  bool mean = false;
  double lo = 0, hi = 1;
  double logFloor = 0;  ///< > 0: the log scale from this floor (attention_scale.h) instead of [lo, hi]
  const std::vector<QRgb>* table = nullptr;
  QRgb background = 0;
};

/// The colour position of a pooled value under the job's scale.
inline double jobPosition(const PixelJob& job, double v) {
  return job.logFloor > 0 ? logPosition(v, job.logFloor) : (v - job.lo) / (job.hi - job.lo);
}

/// Paints pixels [x0, x1) × [y0, y1) of `image`: each the max or mean of the level cells it covers.
void renderPixels(QImage& image, const PixelJob& job, int x0, int x1, int y0, int y1);

}  // namespace attnlab::ui
