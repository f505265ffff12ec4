#include "core/compute/packed_matrix.h"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/base/contention.h"
#include "core/compute/packed_gemm.h"

namespace attnlab {

void* allocatePanels(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  void* p = nullptr;
  if (bytes < kHuge) {
    p = std::malloc(std::max<std::size_t>(bytes, 1));
  } else if (::posix_memalign(&p, kHuge, bytes) == 0) {
    // Advice only (without THP the pages stay 4 KB); the tail past the last whole 2 MB keeps 4 KB pages,
    // so no matrix holds up to 2 MB more than it uses (SmolLM2-135M's 120 matrices: 80 MB).
    ::madvise(p, bytes / kHuge * kHuge, MADV_HUGEPAGE);
  }
  if (!p) throw std::bad_alloc();
  return p;
}

void freePanels(void* p) noexcept { std::free(p); }

template <typename At>
PackedMatrix PackedMatrix::pack(Eigen::Index in, Eigen::Index out, At at) {
  PackedMatrix m;
  m.in_ = in;
  m.out_ = out;
  const Eigen::Index panels = (out + kPanelCols - 1) / kPanelCols;
  m.panels_.resize(static_cast<std::size_t>(panels * in * kPanelCols));  // uninitialised: written below
  float* dst = m.panels_.data();
  // Panels are independent; GPT-2 small packs 340 MB at load, Llama-3.2-1B 3.9 GB, so use every core
  // (which also spreads the first touch of the new pages).
#pragma omp parallel for schedule(static)
  for (Eigen::Index q = 0; q < panels; ++q) {
    const Eigen::Index c0 = q * kPanelCols, nc = std::min(kPanelCols, out - c0);
    float* panel = dst + q * in * kPanelCols;
    for (Eigen::Index k = 0; k < in; ++k)
      for (Eigen::Index j = 0; j < kPanelCols; ++j) panel[k * kPanelCols + j] = j < nc ? at(k, c0 + j) : 0.0f;
  }
  return m;
}

PackedMatrix PackedMatrix::fromInOut(const float* w, Eigen::Index in, Eigen::Index out) {
  return pack(in, out, [w, out](Eigen::Index k, Eigen::Index j) { return w[k * out + j]; });
}

PackedMatrix PackedMatrix::fromOutIn(const float* w, Eigen::Index out, Eigen::Index in) {
  return pack(in, out, [w, in](Eigen::Index k, Eigen::Index j) { return w[j * in + k]; });
}

PackedMatrix PackedMatrix::fromRows(const std::vector<const void*>& rows, Eigen::Index in, StoredFloat type) {
  const auto out = static_cast<Eigen::Index>(rows.size());
  if (type == StoredFloat::BF16)
    return pack(in, out, [&rows](Eigen::Index k, Eigen::Index j) {
      std::uint16_t h = 0;  // bfloat16 is the upper half of a float32
      std::memcpy(&h, static_cast<const unsigned char*>(rows[j]) + 2 * k, 2);
      const std::uint32_t bits = std::uint32_t{h} << 16;
      float v = 0.0f;
      std::memcpy(&v, &bits, 4);
      return v;
    });
  return pack(in, out, [&rows](Eigen::Index k, Eigen::Index j) {
    float v = 0.0f;
    std::memcpy(&v, static_cast<const unsigned char*>(rows[j]) + 4 * k, 4);
    return v;
  });
}

Mat PackedMatrix::affine(const Mat& x, const Eigen::Ref<const Vec>& b) const {
  if (x.cols() != in_) throw std::logic_error("PackedMatrix::affine: x has the wrong number of columns");
  if (b.size() != 0 && b.size() != out_) throw std::logic_error("PackedMatrix::affine: bias of the wrong length");
  Mat y(x.rows(), out_);
  if (y.size() == 0) return y;
  PackedProduct p;
  p.a = x.data();
  p.lda = x.rows();
  p.panels = panels_.data();
  p.bias = b.size() ? b.data() : nullptr;
  p.c = y.data();
  p.ldc = y.rows();
  p.rows = x.rows();
  p.inner = in_;
  p.cols = out_;
  const Eigen::Index panels = (out_ + kPanelCols - 1) / kPanelCols;
  const double madds = static_cast<double>(x.rows()) * static_cast<double>(in_) * static_cast<double>(out_);
  // Many multiply-adds, or a big W to stream from memory even for one token (GPT-2's c_attn is 7 MB).
  const bool big = madds >= kParallelPackedMadds || static_cast<double>(in_) * out_ >= kParallelPackedWeights;
  const int threads = big ? static_cast<int>(std::min<Eigen::Index>(availableThreads(), panels)) : 1;
  if (threads <= 1) {
    packedGemm(p, 0, panels);
    return y;
  }
  // x copied once into the kernel's row groups, shared by the threads (each range used to copy all of it).
  // Kept per calling thread up to 16 MB (GPT-2 small's largest at 1,024 tokens: 12.6 MB); larger copies (long
  // inputs) are freed after the product.
  constexpr std::size_t kKeptRowsFloats = std::size_t{4} << 20;
  thread_local std::vector<float> keptRows;
  std::vector<float> largeRows;
  const std::size_t rowsFloats = packedGemmRowsSize(x.rows(), in_);
  std::vector<float>& rowsCopy = rowsFloats <= kKeptRowsFloats ? keptRows : largeRows;
  if (rowsCopy.size() < rowsFloats) rowsCopy.resize(rowsFloats);
  packGemmRows(p, rowsCopy.data());
  p.packedRows = rowsCopy.data();
  // Contiguous panel ranges, 4 per thread, taken as threads become free: each range of W is streamed
  // once, and a core slowed by another process (2 shared cores here) takes fewer of them instead of
  // making the other wait at the barrier.
  const Eigen::Index chunks = std::min<Eigen::Index>(panels, 4 * threads);
#pragma omp parallel for num_threads(threads) schedule(dynamic)
  for (Eigen::Index t = 0; t < chunks; ++t) packedGemm(p, panels * t / chunks, panels * (t + 1) / chunks);
  return y;
}

Mat PackedMatrix::unpacked() const {
  Mat w(in_, out_);
  for (Eigen::Index j = 0; j < out_; ++j)
    for (Eigen::Index k = 0; k < in_; ++k)
      w(k, j) =
          panels_[static_cast<std::size_t>((j / kPanelCols) * in_ * kPanelCols + k * kPanelCols + j % kPanelCols)];
  return w;
}

}  // namespace attnlab
