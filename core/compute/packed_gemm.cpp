#include "core/compute/packed_gemm.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/compute/cpu_features.h"

// The AVX2 and AVX-512 kernels are compiled on every x86-64 build through function attributes, whatever the
// build's -march, and packedGemm picks one at run time (cpuKernel): a package built for a portable baseline runs
// the fast kernel where the CPU has it. Intrinsics need no -m flag inside a function whose target enables them.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define ATTNLAB_X86_KERNELS 1
#define ATTNLAB_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define ATTNLAB_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
#endif

namespace attnlab {
namespace {

using Index = std::ptrdiff_t;

/// Rows of A handled per pass over the panels: as many as keep the A block [rowBlock, inner] within
/// about 768 KB of this core's L2, but never fewer than 64 rows, so a 64-token sentence reads each
/// weight panel once even for GPT-2's 3072-wide MLP input.
Index rowBlock(Index inner) {
  const Index fit = (768 * 1024 / 4) / std::max<Index>(inner, 1);
  return std::max<Index>(64, fit / 32 * 32);
}

// ---- portable kernel ------------------------------------------------------------------------------

/// C[r0 .. r0+mr, panel's columns] for mr ≤ 16 rows: acc[j][i] = bias_j + Σ_k A[r0+i, k]·B[k, j]; A's rows r0 … at
/// `a0` (row i of step k at a0[k·lda + i]).
void portableBlock(const PackedProduct& p, const float* panel, Index c0, Index r0, Index mr, const float* a0,
                   Index lda) {
  float acc[kPanelCols][16];
  const Index nc = std::min(kPanelCols, p.cols - c0);
  for (Index j = 0; j < kPanelCols; ++j)
    for (Index i = 0; i < 16; ++i) acc[j][i] = p.bias && j < nc ? p.bias[c0 + j] : 0.0f;
  for (Index k = 0; k < p.inner; ++k) {
    const float* a = a0 + k * lda;
    const float* b = panel + k * kPanelCols;
    float av[16] = {};
    for (Index i = 0; i < mr; ++i) av[i] = a[i];
    for (Index j = 0; j < kPanelCols; ++j)
      for (Index i = 0; i < 16; ++i) acc[j][i] += av[i] * b[j];
  }
  for (Index j = 0; j < nc; ++j)
    for (Index i = 0; i < mr; ++i) p.c[(c0 + j) * p.ldc + r0 + i] = acc[j][i];
}

// ---- AVX-512 kernel ------------------------------------------------------------------------------

#ifdef ATTNLAB_X86_KERNELS
/// C[r0 .. r0+16·Z, panel's columns] (the last 16-row group masked by `lastRows`): 12·Z accumulators,
/// each k adds A[rows, k] (Z vector loads) times the broadcast B[k, j] for the 12 columns j.
template <int Z>
ATTNLAB_TARGET_AVX512 void avx512Block(const PackedProduct& p, const float* panel, Index c0, Index r0,
                                       __mmask16 lastRows, const float* a, Index lda) {
  __m512 acc[Z][kPanelCols];
  const Index nc = std::min(kPanelCols, p.cols - c0);
#pragma GCC unroll 16
  for (Index j = 0; j < kPanelCols; ++j) {
    const __m512 b = _mm512_set1_ps(p.bias && j < nc ? p.bias[c0 + j] : 0.0f);
#pragma GCC unroll 16
    for (int z = 0; z < Z; ++z) acc[z][j] = b;
  }
  const Index inner = p.inner;
  for (Index k = 0; k < inner; ++k, a += lda) {
    __m512 av[Z];
#pragma GCC unroll 16
    for (int z = 0; z < Z; ++z)
      av[z] = z == Z - 1 ? _mm512_maskz_loadu_ps(lastRows, a + 16 * z) : _mm512_loadu_ps(a + 16 * z);
    const float* b = panel + k * kPanelCols;
#pragma GCC unroll 16
    for (Index j = 0; j < kPanelCols; ++j) {
      const __m512 bj = _mm512_set1_ps(b[j]);
#pragma GCC unroll 16
      for (int z = 0; z < Z; ++z) acc[z][j] = _mm512_fmadd_ps(av[z], bj, acc[z][j]);
    }
  }
// j runs to the constant kPanelCols (not nc) and every loop is unrolled, so that acc is only ever
// indexed by constants and stays in registers: otherwise GCC keeps it on the stack (GPT-2 small took
// 140 ms instead of 61).
#pragma GCC unroll 16
  for (Index j = 0; j < kPanelCols; ++j)
#pragma GCC unroll 16
    for (int z = 0; z < Z && j < nc; ++z) {
      float* c = p.c + (c0 + j) * p.ldc + r0 + 16 * z;
      if (z == Z - 1)
        _mm512_mask_storeu_ps(c, lastRows, acc[z][j]);
      else
        _mm512_storeu_ps(c, acc[z][j]);
    }
}

/// Rows [r0, r0 + mr) with mr ≤ 32, A's rows at `a` (step k at a + k·lda).
ATTNLAB_TARGET_AVX512 void avx512Rows(const PackedProduct& p, const float* panel, Index c0, Index r0, Index mr,
                                      const float* a, Index lda) {
  const auto mask = [](Index n) { return static_cast<__mmask16>(n >= 16 ? 0xFFFF : (1u << n) - 1u); };
  if (mr > 16)
    avx512Block<2>(p, panel, c0, r0, mask(mr - 16), a, lda);
  else
    avx512Block<1>(p, panel, c0, r0, mask(mr), a, lda);
}
#endif

// ---- AVX2 + FMA kernel (CPUs without AVX-512) -------------------------------------------------------

#ifdef ATTNLAB_X86_KERNELS
/// C[r0 .. r0+8·Z, columns c0 + j0 … c0 + j0 + 5] (the last 8-row group masked by `last`, all lanes when Full): 6·Z
/// accumulators — 12 of AVX2's 16 registers at Z = 2, with the Z rows of A and one broadcast of B — so nothing
/// spills (the portable kernel's 16 × 12 block needs 24 and runs at a tenth of the speed). Each k adds A[rows, k]
/// times the broadcast B[k, j] for the 6 columns: 6·Z multiply-adds per 6 + Z loads.
template <int Z, bool Full>
ATTNLAB_TARGET_AVX2 void avx2Half(const PackedProduct& p, const float* panel, Index c0, Index j0, Index r0,
                                  __m256i last, const float* a, Index lda) {
  constexpr Index kHalf = kPanelCols / 2;
  const Index nc = std::min(kHalf, p.cols - c0 - j0);  // real columns in this half
  if (nc <= 0) return;
  __m256 acc[Z][kHalf];
#pragma GCC unroll 8
  for (Index j = 0; j < kHalf; ++j) {
    const __m256 b = _mm256_set1_ps(p.bias && j < nc ? p.bias[c0 + j0 + j] : 0.0f);
#pragma GCC unroll 8
    for (int z = 0; z < Z; ++z) acc[z][j] = b;
  }
  const float* b = panel + j0;
  for (Index k = 0; k < p.inner; ++k, a += lda, b += kPanelCols) {
    __m256 av[Z];
#pragma GCC unroll 8
    for (int z = 0; z < Z; ++z)
      av[z] = Full || z < Z - 1 ? _mm256_loadu_ps(a + 8 * z) : _mm256_maskload_ps(a + 8 * z, last);
#pragma GCC unroll 8
    for (Index j = 0; j < kHalf; ++j) {
      const __m256 bj = _mm256_broadcast_ss(b + j);
#pragma GCC unroll 8
      for (int z = 0; z < Z; ++z) acc[z][j] = _mm256_fmadd_ps(av[z], bj, acc[z][j]);
    }
  }
  // Every loop runs to constants and is unrolled, so acc is indexed by constants only and stays in registers.
#pragma GCC unroll 8
  for (Index j = 0; j < kHalf; ++j)
#pragma GCC unroll 8
    for (int z = 0; z < Z && j < nc; ++z) {
      float* c = p.c + (c0 + j0 + j) * p.ldc + r0 + 8 * z;
      if (Full || z < Z - 1)
        _mm256_storeu_ps(c, acc[z][j]);
      else
        _mm256_maskstore_ps(c, last, acc[z][j]);
    }
}

/// Rows [r0, r0 + mr) with mr ≤ 16, A's rows at `a` (step k at a + k·lda), the panel's 12 columns in two halves of 6.
ATTNLAB_TARGET_AVX2 void avx2Rows(const PackedProduct& p, const float* panel, Index c0, Index r0, Index mr,
                                  const float* a, Index lda) {
  const Index tail = mr > 8 ? mr - 8 : mr;  // rows in the last 8-row group
  const __m256i last = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(tail)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));  // lanes < tail
  for (Index j0 = 0; j0 < kPanelCols; j0 += kPanelCols / 2) {
    if (mr == 16)
      avx2Half<2, true>(p, panel, c0, j0, r0, last, a, lda);
    else if (mr > 8)
      avx2Half<2, false>(p, panel, c0, j0, r0, last, a, lda);
    else if (mr == 8)
      avx2Half<1, true>(p, panel, c0, j0, r0, last, a, lda);
    else
      avx2Half<1, false>(p, panel, c0, j0, r0, last, a, lda);
  }
}
#endif

/// Copies rows [r0, r0 + groups·groupRows) of A (the last group cut at `rows`) into `to` as [group][k][groupRows].
/// Why: read in place, a step of k jumps `lda` floats, and from a few hundred rows on (1 KB, 4 KB at 1,024 tokens)
/// the steps of a group crowd into a few L1 sets and every load misses — a 1,024-token GPT-2 pass ran its products
/// at half the rate of a 64-token one.
void copyRowGroups(const PackedProduct& p, Index r0, Index groups, Index groupRows, float* to) {
  for (Index g = 0; g < groups; ++g) {
    const Index first = r0 + g * groupRows, mr = std::min(groupRows, p.rows - first);
    for (Index k = 0; k < p.inner; ++k, to += groupRows) {
      const float* from = p.a + k * p.lda + first;
      std::copy(from, from + mr, to);
      std::fill(to + mr, to + groupRows, 0.0f);
    }
  }
}

/// The loop nest shared by the kernels: row blocks outside (the A block stays in cache), then the
/// panels (each streams its slice of B once per row block), then groups of `groupRows` rows, read from
/// p.packedRows or from this thread's own copy of the row block.
template <typename Rows>
void runPanels(const PackedProduct& p, Index panelBegin, Index panelEnd, Index groupRows, Rows rows) {
  const Index block = rowBlock(p.inner) / groupRows * groupRows, groupFloats = p.inner * groupRows;
  thread_local std::vector<float> own;  // one row block of A: [groups][inner][groupRows]
  for (Index rb = 0; rb < p.rows; rb += block) {
    const Index re = std::min(p.rows, rb + block), groups = (re - rb + groupRows - 1) / groupRows;
    const float* packed = nullptr;
    if (p.packedRows) {
      packed = p.packedRows + (rb / groupRows) * groupFloats;
    } else {
      if (static_cast<Index>(own.size()) < groups * groupFloats)
        own.resize(static_cast<std::size_t>(groups * groupFloats));
      copyRowGroups(p, rb, groups, groupRows, own.data());
      packed = own.data();
    }
    for (Index q = panelBegin; q < panelEnd; ++q) {
      const float* panel = p.panels + q * p.inner * kPanelCols;
      for (Index g = 0; g < groups; ++g) {
        const Index r0 = rb + g * groupRows;
        rows(panel, q * kPanelCols, r0, std::min(groupRows, re - r0), packed + g * groupFloats, groupRows);
      }
    }
  }
}

/// Rows per group of the kernel packedGemm runs.
Index kernelGroupRows() { return cpuKernel() == CpuKernel::Avx512 ? 32 : 16; }

}  // namespace

std::size_t packedGemmRowsSize(Index rows, Index inner) {
  const Index g = kernelGroupRows();
  return static_cast<std::size_t>((rows + g - 1) / g * g * inner);
}

void packGemmRows(const PackedProduct& p, float* out) {
  const Index g = kernelGroupRows(), groups = (p.rows + g - 1) / g;
#pragma omp parallel for schedule(static)
  for (Index i = 0; i < groups; ++i) copyRowGroups(p, i * g, 1, g, out + i * g * p.inner);
}

void packedGemmPortable(const PackedProduct& p, Index panelBegin, Index panelEnd) {
  PackedProduct own = p;
  if (kernelGroupRows() != 16) own.packedRows = nullptr;  // a copy made for packedGemm's groups, not of 16 rows
  runPanels(own, panelBegin, panelEnd, 16,
            [&](const float* panel, Index c0, Index r0, Index mr, const float* a, Index lda) {
              portableBlock(p, panel, c0, r0, mr, a, lda);
            });
}

void packedGemm(const PackedProduct& p, Index panelBegin, Index panelEnd) {
#ifdef ATTNLAB_X86_KERNELS
  switch (cpuKernel()) {
    case CpuKernel::Avx512:
      runPanels(p, panelBegin, panelEnd, 32,
                [&](const float* panel, Index c0, Index r0, Index mr, const float* a, Index lda) {
                  avx512Rows(p, panel, c0, r0, mr, a, lda);
                });
      return;
    case CpuKernel::Avx2:
      runPanels(p, panelBegin, panelEnd, 16,
                [&](const float* panel, Index c0, Index r0, Index mr, const float* a, Index lda) {
                  avx2Rows(p, panel, c0, r0, mr, a, lda);
                });
      return;
    case CpuKernel::Portable:
      break;
  }
#endif
  packedGemmPortable(p, panelBegin, panelEnd);
}

bool packedGemmHasAvx512() { return cpuKernel() == CpuKernel::Avx512; }

const char* packedGemmKernel() {
  switch (cpuKernel()) {
    case CpuKernel::Avx512:
      return "packed AVX-512";
    case CpuKernel::Avx2:
      return "packed AVX2";
    default:
      return "packed portable";
  }
}

}  // namespace attnlab
