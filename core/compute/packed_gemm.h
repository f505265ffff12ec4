#pragma once
// The matrix-product kernel behind PackedMatrix (core/compute/packed_matrix.h): C = A·B + b where B has been
// repacked once into column panels. Kept apart so the tests can run the portable kernel and the AVX-512 (or, on
// CPUs without it, AVX2 + FMA) kernel on the same data.
//
// Layouts (all float):
//   A  [rows, inner]  column-major, leading dimension `lda` (an Eigen MatrixXf: lda = rows)
//   B  panels         panel p holds B[k, p·kPanelCols + j] at p·inner·kPanelCols + k·kPanelCols + j,
//                     zero past the last real column, so every panel is whole
//   C  [rows, cols]   column-major, leading dimension `ldc`
// Why this shape: the activations A are few rows (tokens) and stay in cache, while the weights B stream
// from memory once per product; reading B as contiguous panels lets the hardware prefetcher follow it
// (the checkpoint's own row-major layout crosses a page every few rows, and Eigen re-packs it on every
// call: a fifth of GPT-2's forward time).
#include <cstddef>

namespace attnlab {

/// Columns per panel: the micro-kernel keeps a 32 × 12 block of C in 24 of AVX-512's 32 registers.
inline constexpr std::ptrdiff_t kPanelCols = 12;

struct PackedProduct {
  const float* a = nullptr;
  std::ptrdiff_t lda = 0;
  /// A already copied into the kernel's row groups by packGemmRows (or nullptr: each call copies the row blocks
  /// it needs itself). A product split over threads shares one copy instead of making one per panel range: on 2
  /// threads GPT-2's [256, 3072] × [3072, 768] ran at 134 GFLOP/s with a copy per range, 163 with one.
  const float* packedRows = nullptr;
  const float* panels = nullptr;
  const float* bias = nullptr;  ///< [cols] or nullptr
  float* c = nullptr;
  std::ptrdiff_t ldc = 0;
  std::ptrdiff_t rows = 0, inner = 0, cols = 0;
};

/// Floats packGemmRows writes for `rows` × `inner` (the rows rounded up to whole groups of the kernel).
std::size_t packedGemmRowsSize(std::ptrdiff_t rows, std::ptrdiff_t inner);
/// Copies A [rows, inner] (p.a, p.lda) into `out` (packedGemmRowsSize floats) as the kernel reads it: groups of
/// packedGemm's row count, each [inner][group rows], zero past the last row; the groups on all OpenMP threads.
void packGemmRows(const PackedProduct& p, float* out);

/// Computes C's columns of panels [panelBegin, panelEnd) with the fastest kernel this CPU runs (cpuKernel()).
void packedGemm(const PackedProduct& p, std::ptrdiff_t panelBegin, std::ptrdiff_t panelEnd);

/// The same with plain C++ loops (the compiler's auto-vectorisation): the fallback for CPUs with neither AVX-512
/// nor AVX2 + FMA, and the tests' second opinion.
void packedGemmPortable(const PackedProduct& p, std::ptrdiff_t panelBegin, std::ptrdiff_t panelEnd);

/// True when packedGemm uses the AVX-512 kernel (this CPU has it; chosen at run time, see cpu_features.h).
bool packedGemmHasAvx512();
/// The kernel packedGemm uses, for the benchmarks' reports: "packed AVX-512", "packed AVX2" or "packed portable".
const char* packedGemmKernel();

}  // namespace attnlab
