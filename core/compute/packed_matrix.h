#pragma once
// A checkpoint weight matrix W [in, out] repacked once, at load, for fast y = x·W + b (core/compute/packed_gemm.h
// gives the layout and the reason). GPT-2 small at 64 tokens: 105 GFLOP/s per core here against Eigen's
// 60–75 at the same shapes, and no per-call re-packing of 340 MB of weights.
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

class PackedMatrix {
 public:
  PackedMatrix() = default;

  /// W stored [in, out] row-major, as GPT-2's Conv1D keeps it.
  static PackedMatrix fromInOut(const float* w, Eigen::Index in, Eigen::Index out);
  /// W stored [out, in] row-major, as nn.Linear keeps it (y = x·Wᵀ + b: the product uses Wᵀ [in, out]).
  static PackedMatrix fromOutIn(const float* w, Eigen::Index out, Eigen::Index in);

  Eigen::Index inputs() const { return in_; }
  Eigen::Index outputs() const { return out_; }
  bool empty() const { return panels_.empty(); }

  /// y = x·W + b for x [n, in]; b holds `outputs()` entries or none. Big products (see
  /// kParallelPackedMadds) split their column panels over omp_get_max_threads() threads.
  Mat affine(const Mat& x, const Eigen::Ref<const Vec>& b) const;

  /// W back as a dense [in, out] matrix (for the tests).
  Mat unpacked() const;
  /// The panels in the layout of core/compute/packed_gemm.h (for running a kernel directly).
  const float* panels() const { return panels_.data(); }

 private:
  template <typename At>
  static PackedMatrix pack(Eigen::Index in, Eigen::Index out, At at);

  Eigen::Index in_ = 0, out_ = 0;
  std::vector<float> panels_;  ///< [⌈out / kPanelCols⌉][in][kPanelCols], zero-padded
};

/// Below this many multiply-adds, and this many weights, one thread is faster than waking a second one.
inline constexpr double kParallelPackedMadds = 8.0e6;
inline constexpr double kParallelPackedWeights = 262144;  // 1 MB of floats

}  // namespace attnlab
