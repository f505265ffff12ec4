#pragma once
// A checkpoint weight matrix W [in, out] repacked once, at load, for fast y = x·W + b (core/compute/packed_gemm.h
// gives the layout and the reason). GPT-2 small at 64 tokens: 105 GFLOP/s per core here against Eigen's
// 60–75 at the same shapes, and no per-call re-packing of 340 MB of weights.
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

/// Storage for packed panels: blocks of 2 MB and more are 2 MB-aligned and marked for transparent huge
/// pages (madvise), so that packing 4 GB of Llama-3.2-1B faults its memory in 2 MB steps (4× faster here
/// than 4 KB pages) and the products stream it with fewer TLB misses. Elements are left uninitialised:
/// the packing writes every one, padding included.
template <typename T>
struct PanelAllocator {
  using value_type = T;
  PanelAllocator() = default;
  template <typename U>
  PanelAllocator(const PanelAllocator<U>&) {}
  T* allocate(std::size_t n);
  void deallocate(T* p, std::size_t) noexcept;
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) > 0) ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const PanelAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const PanelAllocator<U>&) const {
    return false;
  }
};

void* allocatePanels(std::size_t bytes);
void freePanels(void* p) noexcept;
template <typename T>
T* PanelAllocator<T>::allocate(std::size_t n) {
  return static_cast<T*>(allocatePanels(n * sizeof(T)));
}
template <typename T>
void PanelAllocator<T>::deallocate(T* p, std::size_t) noexcept {
  freePanels(p);
}

/// How stored weights read by PackedMatrix::fromRows are encoded (little-endian, any alignment).
enum class StoredFloat { F32, BF16 };

class PackedMatrix {
 public:
  PackedMatrix() = default;

  /// W stored [in, out] row-major, as GPT-2's Conv1D keeps it.
  static PackedMatrix fromInOut(const float* w, Eigen::Index in, Eigen::Index out);
  /// W stored [out, in] row-major, as nn.Linear keeps it (y = x·Wᵀ + b: the product uses Wᵀ [in, out]).
  static PackedMatrix fromOutIn(const float* w, Eigen::Index out, Eigen::Index in);
  /// W given by its `rows.size()` output rows, rows[j] pointing at the `in` weights of output j (nn.Linear
  /// rows, possibly from several tensors stacked: q | k | v), read as `type`: BF16 checkpoints are packed
  /// straight from the mapped file, with no float copy in between.
  static PackedMatrix fromRows(const std::vector<const void*>& rows, Eigen::Index in, StoredFloat type);

  Eigen::Index inputs() const { return in_; }
  Eigen::Index outputs() const { return out_; }
  bool empty() const { return panels_.empty(); }

  /// y = x·W + b for x [n, in]; b holds `outputs()` entries or none. Big products (see
  /// kParallelPackedMadds) split their column panels over availableThreads() (core/base/contention.h).
  Mat affine(const Mat& x, const Eigen::Ref<const Vec>& b) const;

  /// W back as a dense [in, out] matrix (for the tests).
  Mat unpacked() const;
  /// The panels in the layout of core/compute/packed_gemm.h (for running a kernel directly).
  const float* panels() const { return panels_.data(); }

 private:
  template <typename At>
  static PackedMatrix pack(Eigen::Index in, Eigen::Index out, At at);

  Eigen::Index in_ = 0, out_ = 0;
  std::vector<float, PanelAllocator<float>> panels_;  ///< [⌈out / kPanelCols⌉][in][kPanelCols], zero-padded
};

/// Below this many multiply-adds, and this many weights, one thread is faster than waking a second one.
inline constexpr double kParallelPackedMadds = 8.0e6;
inline constexpr double kParallelPackedWeights = 262144;  // 1 MB of floats

}  // namespace attnlab
