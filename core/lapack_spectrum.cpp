#include "core/lapack_spectrum.h"

#ifdef ATTNLAB_HAVE_LAPACK
#include <dlfcn.h>

#include <mutex>

extern "C" {
// Fortran LAPACK, column-major (as Eigen's default storage): values only (jobz / jobvl / jobvr = 'N').
// The trailing size_t arguments are the hidden lengths of the character arguments (gfortran's ABI).
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t jobzLength);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info,
            std::size_t jobvlLength, std::size_t jobvrLength);
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

std::optional<std::vector<std::complex<double>>> lapackEigenvalues(const MatD& a) {
  if (a.rows() != a.cols() || !fitsInt(a.rows()) || !a.allFinite()) return std::nullopt;
  useOneBlasThread();
  MatD work = a;
  const int n = static_cast<int>(a.rows()), one = 1;
  std::vector<double> wr(static_cast<std::size_t>(n)), wi(static_cast<std::size_t>(n));
  int info = 0, lwork = -1;
  double query = 0;
  dgeev_("N", "N", &n, work.data(), &n, wr.data(), wi.data(), nullptr, &one, nullptr, &one, &query, &lwork, &info, 1,
         1);
  if (info != 0) return std::nullopt;
  lwork = static_cast<int>(query) + 1;
  std::vector<double> buffer(static_cast<std::size_t>(lwork));
  dgeev_("N", "N", &n, work.data(), &n, wr.data(), wi.data(), nullptr, &one, nullptr, &one, buffer.data(), &lwork,
         &info, 1, 1);
  if (info != 0) return std::nullopt;
  std::vector<std::complex<double>> out(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = {wr[i], wi[i]};
  return out;
}

#else

bool lapackAvailable() { return false; }
std::optional<VecD> lapackSingularValues(const MatD&) { return std::nullopt; }
std::optional<std::vector<std::complex<double>>> lapackEigenvalues(const MatD&) { return std::nullopt; }

#endif

}  // namespace attnlab
