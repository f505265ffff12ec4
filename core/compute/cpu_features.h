#pragma once
// What this CPU can run, asked once at run time: the fast kernels (packed_gemm.cpp, the unembedding's tiles) are
// compiled for AVX2 + FMA and AVX-512 with function attributes whatever the build's baseline, so a package built
// for a portable x86-64 baseline still runs them where the CPU has them (and a -march=native build on an older CPU
// never reaches an instruction the CPU lacks).

namespace attnlab {

/// The widest instruction set the kernels use on this CPU. ATTNLAB_KERNEL=portable|avx2|avx512 narrows it (for
/// tests and benchmarks); it never widens it past what the CPU has.
enum class CpuKernel { Portable, Avx2, Avx512 };

/// The kernel in force: the CPU's best, or ATTNLAB_KERNEL's when that is narrower. Read once.
CpuKernel cpuKernel();

/// What the CPU itself supports, ignoring ATTNLAB_KERNEL.
CpuKernel cpuSupportedKernel();

/// "portable", "AVX2" or "AVX-512".
const char* cpuKernelName(CpuKernel k);

}  // namespace attnlab
