#include "core/compute/packed_matrix.h"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/compute/packed_gemm.h"

namespace attnlab {

void* allocatePanels(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (bytes < kHuge) {
    void* p = std::malloc(std::max<std::size_t>(bytes, 1));
    if (!p) throw std::bad_alloc();
    return p;
  }
  const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
  if (!p) throw std::bad_alloc();
  ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages are simply 4 KB
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
  const int threads = big ? static_cast<int>(std::min<Eigen::Index>(omp_get_max_threads(), panels)) : 1;
  if (threads <= 1) {
    packedGemm(p, 0, panels);
    return y;
  }
  // Contiguous panel ranges, one per thread: each thread streams its own part of W once.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) packedGemm(p, panels * t / threads, panels * (t + 1) / threads);
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
