#include "core/run/path_analysis.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/base/parallel_jobs.h"
#include "core/base/rng.h"
#include "core/collapse/collapse_metrics.h"
#include "core/collapse/deep_stack.h"
#include "core/run/collapse_experiment.h"

namespace attnlab {
namespace {

/// A random path of `length` layers out of `layers` (distinct, in increasing order), each with a
/// uniformly chosen head: a partial Fisher–Yates shuffle of the layer indices.
std::vector<std::pair<int, int>> randomPath(int layers, int heads, int length, Rng& rng) {
  std::vector<int> order(layers);
  std::iota(order.begin(), order.end(), 0);
  for (int i = 0; i < length; ++i) {
    const int j = i + static_cast<int>(rng.next() % static_cast<uint64_t>(layers - i));
    std::swap(order[i], order[j]);
  }
  std::sort(order.begin(), order.begin() + length);
  std::vector<std::pair<int, int>> path;
  for (int i = 0; i < length; ++i)
    path.emplace_back(order[i], static_cast<int>(rng.next() % static_cast<uint64_t>(heads)));
  return path;
}

}  // namespace

double log10PathCount(int layers, int length, int heads) {
  if (length < 0 || length > layers) return -INFINITY;
  const double lnChoose = std::lgamma(layers + 1.0) - std::lgamma(length + 1.0) - std::lgamma(layers - length + 1.0);
  return lnChoose / std::log(10.0) + length * std::log10(static_cast<double>(heads));
}

std::vector<int> sampledPathLengths(int layers) {
  std::vector<int> lengths;
  for (int l = 0; l <= std::min(layers, 16); ++l) lengths.push_back(l);
  // Beyond 16 the products sit at machine precision; ~8 points per doubling are enough to show it.
  for (double l = 16 * 1.09; l < layers; l *= 1.09)
    if (static_cast<int>(l) > lengths.back()) lengths.push_back(static_cast<int>(l));
  if (lengths.back() != layers) lengths.push_back(layers);
  return lengths;
}

double pathProductResidual(const std::vector<std::vector<MatD>>& attention,
                           const std::vector<std::pair<int, int>>& path) {
  const Eigen::Index n = attention.empty() || attention[0].empty() ? 0 : attention[0][0].rows();
  MatD product = MatD::Identity(n, n);
  MatD next(n, n);
  for (const auto& [layer, head] : path) {
    next.noalias() = attention[layer][head] * product;  // later layers multiply on the left: [n, n]
    product.swap(next);
    // Rows equal to the last bit: the product is rank 1 to machine precision and stays so, since a
    // row-stochastic factor on the left only averages rows (it never spreads them apart). Stopping
    // here saves most of the work of long paths.
    const double spread = (product.rowwise() - product.row(0)).cwiseAbs().maxCoeff();
    if (spread <= 1e-16 * product.cwiseAbs().maxCoeff()) break;
  }
  return rank1Residual(product);
}

PathAnalysis runPathAnalysis(const Params& p, const RunControl& control) {
  const CollapseSettings& s = p.collapse;
  validate(s);
  PathAnalysis a;
  a.layers = s.depth;
  a.heads = s.heads;
  a.samples = s.pathSamples;
  for (int l = 0; l <= s.depth; ++l) a.log10Count.push_back(log10PathCount(s.depth, l, s.heads));
  a.lengths = sampledPathLengths(s.depth);
  const int dHead = s.dModel / s.heads;
  StackOptions options;
  options.norm = s.norm;
  options.keepAttention = true;
  // One job per seed, each with its own stream of paths: the same numbers however many threads run.
  std::vector<std::vector<std::vector<double>>> perSeed(s.seeds, std::vector<std::vector<double>>(a.lengths.size()));
  parallelJobs(s.pathSamples > 0 ? s.seeds : 0, control, [&](int seed) {
    const uint64_t weightSeed = collapseWeightSeed(s, seed);
    const StackRun run =
        runStacks({StackConfig::SanSkip}, s.dModel, s.heads, s.depth, collapseInput(p, seed),
                  randomLayerWeights(s.dModel, s.init, weightSeed, s.mlpGain),
                  makeStackAttention(s.variant, dHead, weightSeed), options, RunControl{control.cancel, {}})[0];
    const int reached = static_cast<int>(run.attention.size());         // a stopped run offers fewer layers
    Rng rng(mixSeed(s.seed, static_cast<uint64_t>(seed), 0x70617468));  // "path"
    for (std::size_t i = 0; i < a.lengths.size(); ++i) {
      if (a.lengths[i] > reached) continue;
      for (int k = 0; k < s.pathSamples; ++k)
        perSeed[seed][i].push_back(pathProductResidual(run.attention, randomPath(reached, s.heads, a.lengths[i], rng)));
    }
  });
  std::vector<std::vector<double>> values(a.lengths.size());
  for (const auto& seedValues : perSeed)
    for (std::size_t i = 0; i < a.lengths.size(); ++i)
      values[i].insert(values[i].end(), seedValues[i].begin(), seedValues[i].end());
  std::vector<int> kept;
  for (std::size_t i = 0; i < a.lengths.size(); ++i) {
    if (values[i].empty()) continue;
    std::vector<double>& v = values[i];
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size();
    kept.push_back(a.lengths[i]);
    a.median.push_back(m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]));
    a.min.push_back(v.front());
    a.max.push_back(v.back());
  }
  a.lengths = kept;
  return a;
}

nlohmann::json pathsToJson(const PathAnalysis& a) {
  return nlohmann::json{
      {"layers", a.layers},   {"heads", a.heads},   {"samples", a.samples}, {"log10_count", a.log10Count},
      {"lengths", a.lengths}, {"median", a.median}, {"min", a.min},         {"max", a.max}};
}

}  // namespace attnlab
