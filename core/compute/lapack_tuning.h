#pragma once
// Shift and deflation-window sizes for LAPACK's Hessenberg QR (dhseqr → dlaqr0), which computes the
// eigenvalues of every matrix from kLapackMinSize rows up (core/compute/lapack_spectrum.h).
//
// LAPACK takes them from its function IPARMQ, which its documentation asks installers to tune for their
// machine. Its defaults (for n = 256 / 512 / 1024: 32 / 56 / 64 shifts, windows of 32 / 84 / 96) are far
// from the best for attention matrices on this machine: measured with bench_lapack_tuning, smaller
// windows make dgeev 1.3× faster at 256², 2.2–2.4× at 512² and 1.6–1.7× at 1024² (712 → 438 ms), for
// softmax, linear-attention and random Gaussian matrices alike (2048²: 4.1 → 3.5 s; 4096²: on par).
//
// lapack_tuning.cpp therefore defines IPARMQ itself: the executable's definition takes the place of the
// library's (ELF symbol interposition; the library calls IPARMQ through its PLT), answers the two sizes
// below for the top-level iteration and passes every other question to the library's own IPARMQ. The
// eigenvalues do not change beyond rounding: the sizes only steer how fast the iteration converges. If
// the interposition ever does not take effect (a LAPACK linked with -Bsymbolic), nothing breaks;
// lapackAedTuningActive() then says false and the library's defaults apply.
namespace attnlab {

/// Number of simultaneous shifts (NS, IPARMQ's ISPEC 15) and size of the aggressive-early-deflation
/// window (NW, ISPEC 13) for an active block of `nh` rows.
struct AedSizes {
  int shifts = 0;
  int window = 0;
};

/// The sizes the program asks for, or {0, 0} where it keeps LAPACK's own (below 150 rows, where the
/// library's 10 shifts and 10-row windows are already small).
AedSizes tunedAedSizes(int nh);

/// Switches the tuning on (the default) or off, process-wide; for A/B measurements and tests.
void setLapackAedTuning(bool on);

/// For bench_lapack_tuning's search on a new machine: these sizes for every block of 150 rows or more
/// (while the tuning is on); {0, 0} returns to tunedAedSizes. Shifts are rounded down to an even number.
void setFixedAedSizes(AedSizes sizes);

/// True when this build links LAPACK, the tuning is on and LAPACK's ILAENV really answers with the
/// tuned window (asked for a 1024-row problem), i.e. the interposition took effect.
bool lapackAedTuningActive();

}  // namespace attnlab
