#include "core/compute/cpu_features.h"

#include <cstdlib>
#include <cstring>

namespace attnlab {

CpuKernel cpuSupportedKernel() {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return CpuKernel::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuKernel::Avx2;
#endif
  return CpuKernel::Portable;
}

CpuKernel cpuKernel() {
  static const CpuKernel kernel = [] {
    CpuKernel k = cpuSupportedKernel();
    if (const char* asked = std::getenv("ATTNLAB_KERNEL")) {
      if (std::strcmp(asked, "portable") == 0) k = CpuKernel::Portable;
      if (std::strcmp(asked, "avx2") == 0 && k == CpuKernel::Avx512) k = CpuKernel::Avx2;
    }
    return k;
  }();
  return kernel;
}

const char* cpuKernelName(CpuKernel k) {
  switch (k) {
    case CpuKernel::Avx512:
      return "AVX-512";
    case CpuKernel::Avx2:
      return "AVX2";
    default:
      return "portable";
  }
}

}  // namespace attnlab
