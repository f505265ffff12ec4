#include "core/model/unembedding.h"

#include <algorithm>
#include <cmath>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
// dotTiles is compiled for AVX-512 whatever the build's baseline and taken only where the CPU has it (cpuKernel).
#define ATTNLAB_X86_TILES 1
#endif

#include "core/base/contention.h"
#include "core/compute/cpu_features.h"
#include "core/model/blocks.h"

namespace attnlab {

Mat Unembedding::transformed(const Mat& x) const {
  if (!hasTransform()) return x;
  Mat y = x * transformWeight.transpose();  // [n, d]·[d, d]: W_T is [out, in]
  y.rowwise() += transformBias.transpose();
  switch (transformActivation) {
    case Activation::GeluErf:
      geluErfInPlace(y);
      break;
    case Activation::GeluTanh:
      geluTanhInPlace(y);
      break;
    case Activation::Relu:
      reluInPlace(y);
      break;
  }
  return y;
}

Vec Unembedding::scales(const Mat& x) const {
  if (norm == Norm::None) return Vec::Ones(x.rows());
  if (norm == Norm::Rms) return (x.array().square().rowwise().mean() + static_cast<float>(eps)).sqrt();
  const Vec mean = x.rowwise().mean();
  const Vec var = (x.colwise() - mean).array().square().rowwise().mean();
  return (var.array() + static_cast<float>(eps)).sqrt();
}

Mat Unembedding::normalise(const Mat& x) const {
  if (norm == Norm::None) return x;
  const Vec sigma = scales(x);  // [n]
  Mat y = x;
  if (norm == Norm::Layer) y.colwise() -= x.rowwise().mean();
  y = (y.array().colwise() / sigma.array()).matrix();
  y = (y.array().rowwise() * gamma.transpose().array()).matrix();
  if (beta.size() > 0) y.rowwise() += beta.transpose();
  return y;
}

namespace {

#ifdef ATTNLAB_X86_TILES
/// out[r, t] = x[r] · W_U[t] for t in [t0, t1) and every row r of xr [rows, d] (row-major), into out
/// [rows, vocab] (column-major). Tiles of 8 vocabulary rows × 2 input rows keep 16 sums in registers;
/// the 8 rows of W_U (24 KB at d = 768) stay in L1 while every input row passes, so W_U streams from
/// memory once whatever the number of rows. A tile past the end reads a real row again and stores nothing.
__attribute__((target("avx512f"))) void dotTiles(const float* w, Eigen::Index stride, Eigen::Index t0, Eigen::Index t1,
                                                 const float* xr, Eigen::Index rows, Eigen::Index d, float* out) {
  constexpr int kT = 8, kR = 2;
  for (Eigen::Index t = t0; t < t1; t += kT) {
    const float* wr[kT];
    for (int a = 0; a < kT; ++a) wr[a] = w + std::min(t + a, t1 - 1) * stride;
    for (Eigen::Index r = 0; r < rows; r += kR) {
      const float* xp[kR];
      for (int b = 0; b < kR; ++b) xp[b] = xr + std::min(r + b, rows - 1) * d;
      __m512 acc[kR][kT];
      for (auto& row : acc)
        for (__m512& v : row) v = _mm512_setzero_ps();
      for (Eigen::Index j = 0; j < d; j += 16) {
        const __mmask16 m = d - j >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (d - j)) - 1u);
        __m512 wv[kT];
        for (int a = 0; a < kT; ++a) wv[a] = _mm512_maskz_loadu_ps(m, wr[a] + j);
        for (int b = 0; b < kR; ++b) {
          const __m512 xv = _mm512_maskz_loadu_ps(m, xp[b] + j);
          for (int a = 0; a < kT; ++a) acc[b][a] = _mm512_fmadd_ps(xv, wv[a], acc[b][a]);
        }
      }
      for (int a = 0; a < kT && t + a < t1; ++a)
        for (int b = 0; b < kR && r + b < rows; ++b) out[(t + a) * rows + r + b] = _mm512_reduce_add_ps(acc[b][a]);
    }
  }
}
#endif

/// tanh soft-capping of logits (Gemma 2), none for softcap = 0.
Mat softcapped(Mat logits, double softcap) {
  if (softcap <= 0.0) return logits;
  const float c = static_cast<float>(softcap);
  return logits.unaryExpr([c](float s) { return std::tanh(s / c) * c; });
}

}  // namespace

const PackedMatrix* Unembedding::packedTranspose() const {
  const double bytes = static_cast<double>(vocab) * static_cast<double>(d) * sizeof(float);
  if (colStride != 1 || bytes > kMaxPackedUnembeddingBytes || !packed) return nullptr;
  std::call_once(packed->once, [&] {
    std::vector<const void*> rows(static_cast<size_t>(vocab));  // nn.Linear rows: u_t at t·rowStride
    for (Eigen::Index t = 0; t < vocab; ++t) rows[static_cast<size_t>(t)] = data + t * rowStride;
    packed->wt = PackedMatrix::fromRows(rows, d, StoredFloat::F32);
  });
  return &packed->wt;
}

Mat Unembedding::logits(const Mat& x) const {
  const Mat normed = normalise(transformed(x));  // [n, d]
  const PackedMatrix* pw = x.rows() >= kTiledMinRows ? packedTranspose() : nullptr;
  Mat out = pw ? pw->affine(normed, bias) : Mat(x.rows(), vocab);  // [n, vocab]
  if (pw) return softcapped(std::move(out), softcap);
  // Several rows go through the packed copy of W_U (PackedUnembedding) when there is one. Otherwise the product
  // is bound by reading W_U (154 MB for GPT-2 small): blocks of the vocabulary go side by side on the OpenMP
  // threads (Eigen's own threading is off in this build). With rows of W_U contiguous (every model here),
  // several rows (a W_U too big to copy: Llama 3.2's 1 GB) take dotTiles, which reads W_U once
  // (Eigen's product re-reads it per 48-row panel of a 13-row left side: 21 ms); one row a row-major view that
  // vectorises (Eigen's general strided view does not: 130 ms for one GPT-2-small row against a few ms).
  using RowMajorView =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;
#ifdef ATTNLAB_X86_TILES
  const bool tiles = colStride == 1 && x.rows() >= kTiledMinRows && cpuKernel() == CpuKernel::Avx512;
#else
  const bool tiles = false;
#endif
  const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> xr = tiles ? normed : Mat();
  constexpr Eigen::Index kBlock = 4096;
  const auto blocks = static_cast<int>((vocab + kBlock - 1) / kBlock);
  const int threads = availableThreads();  // one while the cores are busy (contention.h)
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int b = 0; b < blocks; ++b) {
    const Eigen::Index v0 = b * kBlock, len = std::min(kBlock, vocab - v0);
    if (tiles) {
#ifdef ATTNLAB_X86_TILES
      dotTiles(data, rowStride, v0, v0 + len, xr.data(), xr.rows(), d, out.data());
#endif
    } else if (colStride == 1) {
      const RowMajorView w(data, vocab, d, Eigen::OuterStride<>(rowStride));
      out.middleCols(v0, len).noalias() = normed * w.middleRows(v0, len).transpose();
    } else {
      out.middleCols(v0, len).noalias() = normed * weights().middleRows(v0, len).transpose();
    }
  }
  if (bias.size() > 0) out.rowwise() += bias.transpose();
  return softcapped(std::move(out), softcap);
}

}  // namespace attnlab
