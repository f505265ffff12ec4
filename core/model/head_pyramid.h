#pragma once
// The pooled levels of one head's attention map for the zoomable heatmap (issue 18), made from 64-row blocks
// recomputed from the head's Q and K (head_maps.h) — never the whole n × n map — on every core, reading only the
// keys each block's queries see (a causal map's upper triangle and a window's outside are 0 without a product).
// What the window does when the user selects another head of a long input: SmolLM2-135M at 8,192 tokens
// ≈ 4.3 GFLOP of Q·Kᵀ and 34 M exponentials (bench_long).
#include <memory>
#include <vector>

#include "core/compute/map_pyramid.h"
#include "core/model/trace.h"

namespace attnlab {

/// The pyramid of head `h`'s attention weights over its n tokens. The producer it keeps (for full-resolution
/// reads) refers to `h` and holds `owner` (what keeps `h` alive: the GUI's result) as long as the pyramid lives.
std::shared_ptr<MapPyramid> headPyramid(const HeadTrace& h, std::shared_ptr<const void> owner = nullptr,
                                        const MapPyramid::Options& options = {});
/// The same built into `into`, whose levels keep their storage when the shape is the same (no fresh pages).
/// With `rowMax` (the row colour scale, ui/plots/attention_scale.h): every row is divided by its largest weight,
/// which is stored at rowMax[row] ([n]; a row whose largest weight is 0 stays 0 with rowMax 0), so that max pooling
/// keeps each row's peak at 1 however far the view zooms out; the full-resolution reads are normalised too.
void buildHeadPyramid(MapPyramid& into, const HeadTrace& h, std::shared_ptr<const void> owner = nullptr,
                      const MapPyramid::Options& options = {}, std::shared_ptr<std::vector<float>> rowMax = nullptr);

}  // namespace attnlab
