#pragma once
// Threads for the big matrix products of real checkpoints. Eigen's own OpenMP splitting is off for
// the whole core (EIGEN_DONT_PARALLELIZE, see core/CMakeLists.txt): it split even small products, and
// on a loaded 2-core machine a spinning OpenMP barrier turned a 16 ms deep stack into 769 ms. Large
// products (GPT-2 small: [64, 768]·[768, 2304]) are split here instead, by column blocks of W, so each
// thread packs only its own part of the weights.
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>

#include "core/base/contention.h"

namespace attnlab {

/// y = x·w  [rows(x), cols(w)], on all OpenMP threads (one while the cores are busy: contention.h) when the product has
/// ≥ 8·10⁶ multiply-adds.
template <typename M>
void parallelProduct(const M& x, const M& w, M& y) {
  y.resize(x.rows(), w.cols());
  const double madds = static_cast<double>(x.rows()) * x.cols() * w.cols();
  const int threads = madds >= 8.0e6 ? std::min<int>(availableThreads(), static_cast<int>(w.cols() / 64)) : 1;
  if (threads <= 1) {
    y.noalias() = x * w;
    return;
  }
  const Eigen::Index cols = w.cols(), block = (cols + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const Eigen::Index c0 = t * block, nc = std::min(block, cols - c0);
    if (nc > 0) y.middleCols(c0, nc).noalias() = x * w.middleCols(c0, nc);
  }
}

}  // namespace attnlab
