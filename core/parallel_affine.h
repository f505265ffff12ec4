#pragma once
// y = x·W + b with the output columns split over the OpenMP threads, for the checkpoint models' big
// products (GPT-2 small: [64, 768]·[768, 3072]). Eigen's own splitting is off in this project
// (EIGEN_DONT_PARALLELIZE, core/CMakeLists.txt) because it hurts the small models; here each thread
// runs the ordinary single-threaded affine() on its own slice of W's columns, so the product is the
// same code and the same numbers, only cut in pieces.
#include <algorithm>

#include <omp.h>

#include "core/blocks.h"

namespace attnlab {

/// Below this many multiply-adds one thread is faster than waking a second one.
inline constexpr double kParallelProductMadds = 8.0e6;

/// affine(x, w, b) computed in column slices on up to omp_get_max_threads() threads. b must hold one
/// entry per column of w.
template <typename M, typename W, typename V>
M parallelAffine(const M& x, const Eigen::MatrixBase<W>& w, const Eigen::MatrixBase<V>& b) {
  const double madds = static_cast<double>(x.rows()) * static_cast<double>(w.rows()) * static_cast<double>(w.cols());
#ifdef ATTNLAB_OPENBLAS
  const int threads = 1;  // OpenBLAS threads the product itself
  (void)madds;
#else
  const int threads = madds >= kParallelProductMadds ? omp_get_max_threads() : 1;
#endif
  if (threads <= 1) return affine(x, w, b);
  // Slices of a multiple of 16 columns keep every slice on whole SIMD packets.
  const Eigen::Index cols = w.cols(), slice = ((cols + threads - 1) / threads + 15) / 16 * 16;
  M y(x.rows(), cols);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const Eigen::Index c0 = t * slice, n = std::min(slice, cols - c0);
    if (n > 0) y.middleCols(c0, n) = affine(x, w.middleCols(c0, n), b.segment(c0, n));
  }
  return y;
}

}  // namespace attnlab
