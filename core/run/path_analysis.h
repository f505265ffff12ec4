#pragma once
// The path view of seeds/002: with skip connections, an L-layer network of H heads per layer is a sum
// of paths; a path of length ℓ passes through a head in ℓ of the L layers and skips the others, so
// there are C(L, ℓ)·H^ℓ of them. Along a path the tokens are mixed by the product of the attention
// matrices it passes through, P = A_{ℓ}···A_{1} [n, n]; that product is row-stochastic and converges
// to rank 1 (every row the same) as ℓ grows — short paths keep rank, long ones lose it.
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/run_control.h"
#include "core/base/tensor.h"
#include "core/session/params.h"

namespace attnlab {

/// log₁₀(C(L, ℓ)·H^ℓ): the count overflows a double long before L = 128, its logarithm does not.
double log10PathCount(int layers, int length, int heads);

struct PathAnalysis {
  int layers = 0, heads = 0, samples = 0;
  std::vector<double> log10Count;  ///< per length ℓ = 0 … L
  std::vector<int> lengths;        ///< the lengths sampled (all up to 16, then spaced out to L)
  /// Rank-1 residual of the path products, per sampled length: median, min, max over seeds × samples.
  std::vector<double> median, min, max;
};

/// The lengths the analysis samples for an L-layer network.
std::vector<int> sampledPathLengths(int layers);

/// Rank-1 residual (collapse_metrics.h) of the product of the attention matrices along one path.
/// `attention[l][h]` is head h of layer l+1 [n, n]; `path` lists (layer index, head) in layer order.
double pathProductResidual(const std::vector<std::vector<MatD>>& attention,
                           const std::vector<std::pair<int, int>>& path);

/// Runs the san-skip stack of p.collapse from every seed (keeping its attention matrices) and samples
/// p.collapse.pathSamples random paths per length from each. Throws InputError / Cancelled.
PathAnalysis runPathAnalysis(const Params& p, const RunControl& control = {});

/// {"layers", "heads", "log10_count": [...], "lengths": [...], "median"/"min"/"max": [...]}
nlohmann::json pathsToJson(const PathAnalysis& a);

}  // namespace attnlab
