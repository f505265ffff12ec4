#pragma once
// Singular values and eigenvalues through the system's LAPACK (dgesdd; dgeev's steps; values only) for the
// larger matrices of the spectrum views. Eigen's EigenSolver needs ~230 ms for a 256² softmax attention
// matrix and 23 s for 1024² (its Francis QR has no aggressive early deflation, and an attention matrix's
// cluster of tiny eigenvalues makes it iterate); LAPACK's dhseqr does it in a fraction. On Debian the
// library behind liblapack.so.3 is OpenBLAS when libopenblas0-pthread is installed (scripts install it),
// else the reference LAPACK. OpenBLAS is set to one thread (process-wide, on the first call): the
// program's own worker threads already run analyses side by side, and letting each call spread over the
// cores oversubscribed them (a 1024² eigenvalue call took 29 s instead of 1.1 s on a busy machine; a
// two-thread Hessenberg reduction alone went from 0.19 s to 0.82 s with one core busy elsewhere).
// dhseqr's shift and window sizes are the program's own: core/compute/lapack_tuning.h.
#include <complex>
#include <optional>
#include <vector>

#include "core/base/run_control.h"
#include "core/base/tensor.h"

namespace attnlab {

/// True when the build links a LAPACK (CMake option ATTNLAB_LAPACK).
bool lapackAvailable();
/// Singular values, descending; nullopt without LAPACK or when the routine fails (callers fall back to Eigen).
std::optional<VecD> lapackSingularValues(const MatD& a);
/// Eigenvalues of a square matrix, unordered; nullopt without LAPACK or when the iteration fails. dgeev's
/// steps (scaling, dgebal, dgehrd, dhseqr) one by one, with `control`'s checkpoints between them: a 4096²
/// matrix takes tens of seconds, and its progress bar moves and a cancel takes effect at each step.
std::optional<std::vector<std::complex<double>>> lapackEigenvalues(const MatD& a, const RunControl& control = {});

/// Below this size Eigen is as fast and the call stays in one library.
inline constexpr Eigen::Index kLapackMinSize = 48;

}  // namespace attnlab
