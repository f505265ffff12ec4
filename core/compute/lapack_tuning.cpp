#include "core/compute/lapack_tuning.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstddef>

#ifdef ATTNLAB_HAVE_LAPACK
#include <dlfcn.h>
#endif

namespace attnlab {

namespace {
std::atomic<bool> tuningOn{true};
std::atomic<int> fixedShifts{0}, fixedWindow{0};

/// What the iteration is asked to use for a block of nh rows: {0, 0} for LAPACK's own. (Unused in a
/// build without LAPACK.)
[[maybe_unused]] AedSizes requestedAedSizes(int nh) {
  if (!tuningOn.load(std::memory_order_relaxed)) return {};
  const int shifts = fixedShifts.load(std::memory_order_relaxed);
  if (shifts > 0 && nh >= 150) return {shifts, fixedWindow.load(std::memory_order_relaxed)};
  return tunedAedSizes(nh);
}
}  // namespace

AedSizes tunedAedSizes(int nh) {
  // Measured on softmax attention matrices (soft and peaky), linear-attention matrices and Gaussian
  // matrices at 256, 512, 1024 and 2048 rows (bench_lapack_tuning, also --grid). Windows stay below
  // LAPACK's NMIN (75), so the window's own Schur form is found by the small double-shift code; larger
  // windows cost more in that code than their extra deflations save.
  if (nh < 150) return {};
  if (nh < 590) return {16, 16};
  if (nh < 1500) return {16, 32};
  return {32, 48};
}

void setLapackAedTuning(bool on) { tuningOn.store(on); }

void setFixedAedSizes(AedSizes sizes) {
  const bool valid = sizes.shifts >= 2 && sizes.window >= 2;
  fixedWindow.store(valid ? sizes.window : 0);
  fixedShifts.store(valid ? sizes.shifts - sizes.shifts % 2 : 0);
}

}  // namespace attnlab

#ifdef ATTNLAB_HAVE_LAPACK

namespace {

using Iparmq = int (*)(const int*, const char*, const char*, const int*, const int*, const int*, const int*,
                       std::size_t, std::size_t);

/// LAPACK's documented IPARMQ defaults, for the unlikely case that the library's own cannot be found
/// (a static LAPACK, whose IPARMQ this file then replaces outright).
int documentedDefault(int ispec, int nh) {
  int ns = 2;
  if (nh >= 30) ns = 4;
  if (nh >= 60) ns = 10;
  if (nh >= 150) {
    int log2 = 0;
    for (int v = nh; v > 1; v /= 2) ++log2;
    ns = std::max(10, nh / std::max(1, log2));
  }
  if (nh >= 590) ns = 64;
  if (nh >= 3000) ns = 128;
  if (nh >= 6000) ns = 256;
  ns = std::max(2, ns - ns % 2);
  switch (ispec) {
    case 12:
      return 75;  // INMIN: below, the double-shift code
    case 13:
      return nh <= 500 ? ns : 3 * ns / 2;  // INWIN: deflation window
    case 14:
      return 14;  // INIBL: nibble crossover, percent
    case 15:
      return ns;  // ISHFTS: simultaneous shifts
    case 16:
      return ns >= 14 ? 2 : 0;  // IACC22: accumulate reflections, use 2×2 blocks
    default:
      return 10;  // ICOST
  }
}

bool isTopLevelDoubleIteration(const char* name, std::size_t length) {
  static const char kName[] = "DLAQR0";
  if (length < 6) return false;
  for (int i = 0; i < 6; ++i)
    if (std::toupper(static_cast<unsigned char>(name[i])) != kName[i]) return false;
  return true;
}

}  // namespace

// LAPACK's INTEGER FUNCTION IPARMQ(ISPEC, NAME, OPTS, N, ILO, IHI, LWORK); the trailing size_t arguments
// are the hidden lengths of the two CHARACTER arguments (gfortran's ABI). Exported from the executable
// (visibility default, and CMake keeps it linked in), so the library's calls arrive here.
extern "C" __attribute__((visibility("default"))) int iparmq_(const int* ispec, const char* name, const char* opts,
                                                              const int* n, const int* ilo, const int* ihi,
                                                              const int* lwork, std::size_t nameLength,
                                                              std::size_t optsLength) {
  static const Iparmq library = reinterpret_cast<Iparmq>(dlsym(RTLD_NEXT, "iparmq_"));
  const int nh = *ihi - *ilo + 1;
  if ((*ispec == 13 || *ispec == 15) && isTopLevelDoubleIteration(name, nameLength)) {
    const attnlab::AedSizes sizes = attnlab::requestedAedSizes(nh);
    if (sizes.shifts > 0) return *ispec == 15 ? sizes.shifts : sizes.window;
  }
  if (library) return library(ispec, name, opts, n, ilo, ihi, lwork, nameLength, optsLength);
  return documentedDefault(*ispec, nh);
}

extern "C" int ilaenv_(const int* ispec, const char* name, const char* opts, const int* n1, const int* n2,
                       const int* n3, const int* n4, std::size_t nameLength, std::size_t optsLength);

bool attnlab::lapackAedTuningActive() {
  // ILAENV forwards ISPEC 12–17 to IPARMQ: if the library reaches ours, it answers with the tuned window.
  const int ispec = 13, n = 1024, ilo = 1, lwork = 1 << 20;
  const int answer = ilaenv_(&ispec, "DLAQR0", "EN", &n, &ilo, &n, &lwork, 6, 2);
  return tuningOn.load() && answer == requestedAedSizes(n).window;
}

#else

bool attnlab::lapackAedTuningActive() { return false; }

#endif
