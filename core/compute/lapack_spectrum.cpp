#include "core/compute/lapack_spectrum.h"

#ifdef ATTNLAB_HAVE_LAPACK
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

extern "C" {
// Fortran LAPACK, column-major (as Eigen's default storage): values only (jobz = 'N', compz = 'N').
// The trailing size_t arguments are the hidden lengths of the character arguments (gfortran's ABI).
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t jobzLength);
void dgebal_(const char* job, const int* n, double* a, const int* lda, int* ilo, int* ihi, double* scale, int* info,
             std::size_t jobLength);
void dgehrd_(const int* n, const int* ilo, const int* ihi, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void dhseqr_(const char* job, const char* compz, const int* n, const int* ilo, const int* ihi, double* h,
             const int* ldh, double* wr, double* wi, double* z, const int* ldz, double* work, const int* lwork,
             int* info, std::size_t jobLength, std::size_t compzLength);
}
#endif

namespace attnlab {

#ifdef ATTNLAB_HAVE_LAPACK
namespace {

/// OpenBLAS (when it is the LAPACK behind liblapack.so.3) would start a thread per core for every call;
/// found at run time because the reference LAPACK has no such function.
void useOneBlasThread() {
  static std::once_flag once;
  std::call_once(once, [] {
    using SetThreads = void (*)(int);
    if (auto f = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) f(1);
  });
}

bool fitsInt(Eigen::Index n) { return n > 0 && n < (1 << 20); }

}  // namespace

bool lapackAvailable() { return true; }

std::optional<VecD> lapackSingularValues(const MatD& a) {
  // NaN or ∞ would make LAPACK report an illegal argument, which in the reference library stops the program.
  if (!fitsInt(a.rows()) || !fitsInt(a.cols()) || !a.allFinite()) return std::nullopt;
  useOneBlasThread();
  MatD work = a;  // dgesdd overwrites its input
  const int m = static_cast<int>(a.rows()), n = static_cast<int>(a.cols()), lda = m, one = 1;
  VecD s(std::min(m, n));
  std::vector<int> iwork(static_cast<std::size_t>(8 * std::min(m, n)));
  int info = 0, lwork = -1;
  double query = 0;
  dgesdd_("N", &m, &n, work.data(), &lda, s.data(), nullptr, &one, nullptr, &one, &query, &lwork, iwork.data(), &info,
          1);
  if (info != 0) return std::nullopt;
  lwork = static_cast<int>(query) + 1;
  std::vector<double> buffer(static_cast<std::size_t>(lwork));
  dgesdd_("N", &m, &n, work.data(), &lda, s.data(), nullptr, &one, nullptr, &one, buffer.data(), &lwork, iwork.data(),
          &info, 1);
  if (info != 0 || !s.allFinite()) return std::nullopt;
  return s;
}

std::optional<std::vector<std::complex<double>>> lapackEigenvalues(const MatD& a, const RunControl& control) {
  if (a.rows() != a.cols() || !fitsInt(a.rows()) || !a.allFinite()) return std::nullopt;
  useOneBlasThread();
  // dgeev's steps for eigenvalues only, called one by one so that a long computation reports progress and
  // can be cancelled between them. The fractions are the steps' shares of the time at 1024² (bench).
  control.checkpoint(0.0);
  const int n = static_cast<int>(a.rows()), one = 1;
  // 1. Like dgeev: bring the largest entry into [small, big] (an exact power of two, undone at the end) so
  //    that the iteration neither underflows nor overflows.
  const double small = std::sqrt(std::numeric_limits<double>::min()) / std::numeric_limits<double>::epsilon();
  const double big = 1.0 / small, largest = a.cwiseAbs().maxCoeff();
  int exponent = 0;
  if (largest > 0 && largest < small) exponent = std::ilogb(small / largest) + 1;
  if (largest > big) exponent = -(std::ilogb(largest / big) + 1);
  MatD h = exponent == 0 ? a : MatD(a * std::ldexp(1.0, exponent));
  // 2. Balance: permute isolated eigenvalues out, scale rows and columns to equal norms (exact: powers of 2).
  int ilo = 1, ihi = n, info = 0;
  std::vector<double> balance(static_cast<std::size_t>(n));
  dgebal_("B", &n, h.data(), &n, &ilo, &ihi, balance.data(), &info, 1);
  if (info != 0) return std::nullopt;
  control.checkpoint(0.05);
  // 3. Upper Hessenberg form by orthogonal similarity: ~10/3 n³ flops, a third of the time.
  std::vector<double> tau(static_cast<std::size_t>(std::max(1, n - 1)));
  int lwork = -1;
  double query = 0;
  dgehrd_(&n, &ilo, &ihi, h.data(), &n, tau.data(), &query, &lwork, &info);
  if (info != 0) return std::nullopt;
  std::vector<double> work(static_cast<std::size_t>(std::max(1.0, query)) + 1);
  lwork = static_cast<int>(work.size());
  dgehrd_(&n, &ilo, &ihi, h.data(), &n, tau.data(), work.data(), &lwork, &info);
  if (info != 0) return std::nullopt;
  control.checkpoint(0.4);
  // 4. The shifted QR iteration on the Hessenberg matrix, eigenvalues only (shift sizes: lapack_tuning.h).
  std::vector<double> wr(static_cast<std::size_t>(n)), wi(static_cast<std::size_t>(n));
  lwork = -1;
  dhseqr_("E", "N", &n, &ilo, &ihi, h.data(), &n, wr.data(), wi.data(), nullptr, &one, &query, &lwork, &info, 1, 1);
  if (info != 0) return std::nullopt;
  work.assign(static_cast<std::size_t>(std::max(1.0, query)) + 1, 0.0);
  lwork = static_cast<int>(work.size());
  dhseqr_("E", "N", &n, &ilo, &ihi, h.data(), &n, wr.data(), wi.data(), nullptr, &one, work.data(), &lwork, &info, 1,
          1);
  if (info != 0) return std::nullopt;  // > 0: the iteration did not converge for some eigenvalues
  const double unscale = std::ldexp(1.0, -exponent);
  std::vector<std::complex<double>> out(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {wr[i] * unscale, wi[i] * unscale};
  return out;
}

#else

bool lapackAvailable() { return false; }
std::optional<VecD> lapackSingularValues(const MatD&) { return std::nullopt; }
std::optional<std::vector<std::complex<double>>> lapackEigenvalues(const MatD&, const RunControl&) {
  return std::nullopt;
}

#endif

}  // namespace attnlab
