#pragma once
// How many threads Eigen's matrix products may use. OpenMP pays off only for big products (GPT-2
// small: [64, 768]·[768, 2304]); for the built-in model's tiny ones, waking a second thread costs
// more than the product, and on a loaded 2-core machine a spinning OpenMP barrier can turn 0.1 ms into
// 100 ms. So models pick the count from the size of their largest product before they run.
#include <Eigen/Core>

namespace attnlab {

/// Sets Eigen's thread count for products of roughly rows × inner × cols multiply-adds.
inline void useThreadsForProductSize(double rows, double inner, double cols) {
  const double madds = rows * inner * cols;
  Eigen::setNbThreads(madds >= 8.0e6 ? 0 : 1);  // 0: OpenMP's default (all cores)
}

}  // namespace attnlab
