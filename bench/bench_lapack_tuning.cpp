// Times LAPACK's eigenvalues (dgeev's steps, values only, one thread: core/compute/lapack_spectrum.h) with LAPACK's own
// shift and window sizes against the program's (core/compute/lapack_tuning.h), on four kinds of matrix, and checks
// that both give the same eigenvalues. Wall-clock medians; the two settings alternate run by run so that
// a noisy machine slows both alike.
//   bench_lapack_tuning [max_n]                 (default 1024)
//   bench_lapack_tuning --grid N [kind]         times fixed (shifts, window) pairs at size N, to re-tune
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/base/rng.h"
#include "core/base/tensor.h"
#include "core/compute/lapack_spectrum.h"
#include "core/compute/lapack_tuning.h"

using namespace attnlab;

namespace {

using Eigenvalues = std::vector<std::complex<double>>;

MatD gaussian(int rows, int cols, Rng& rng) {
  MatD m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal();
  return m;
}

void normaliseRows(MatD& m) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) m.row(i) /= m.row(i).sum();
}

/// softmax(c · Q·Kᵀ) with Gaussian Q, K [n, 64]: c = 1/8 is a head as initialised (1/√d), c = 1/2 a
/// peaky one (most of each row's weight on a few keys).
MatD softmaxAttention(int n, double c, Rng& rng) {
  const MatD q = gaussian(n, 64, rng), k = gaussian(n, 64, rng);
  MatD a = c * q * k.transpose();
  for (Eigen::Index i = 0; i < n; ++i) a.row(i) = (a.row(i).array() - a.row(i).maxCoeff()).exp().matrix();
  normaliseRows(a);
  return a;
}

/// Linear attention with φ = 1 + elu: rank ≤ 64, so most eigenvalues are (numerically) zero.
MatD linearAttention(int n, Rng& rng) {
  const auto phi = [](const MatD& x) { return MatD((x.array() > 0).select(x.array() + 1.0, x.array().exp())); };
  MatD a = phi(gaussian(n, 64, rng)) * phi(gaussian(n, 64, rng)).transpose();
  normaliseRows(a);
  return a;
}

struct Kind {
  const char* name;
  std::function<MatD(int, Rng&)> make;
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> all = {
      {"softmax", [](int n, Rng& r) { return softmaxAttention(n, 1.0 / 8, r); }},
      {"peaky", [](int n, Rng& r) { return softmaxAttention(n, 0.5, r); }},
      {"linear", [](int n, Rng& r) { return linearAttention(n, r); }},
      {"gaussian", [](int n, Rng& r) { return gaussian(n, n, r); }},
  };
  return all;
}

double millisecondsOf(const MatD& a, Eigenvalues* out) {
  const auto t0 = std::chrono::steady_clock::now();
  auto ev = lapackEigenvalues(a);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!ev) {
    std::fprintf(stderr, "LAPACK failed\n");
    std::exit(1);
  }
  if (out) *out = std::move(*ev);
  return ms;
}

/// Largest distance between the two lists, each sorted by modulus then imaginary part, relative to the
/// spectral radius. Eigenvalues in a tight cluster are ill-conditioned, so only ~1e-8 is expected there.
double largestDifference(Eigenvalues x, Eigenvalues y) {
  const auto order = [](const std::complex<double>& a, const std::complex<double>& b) {
    return std::abs(a) != std::abs(b) ? std::abs(a) > std::abs(b) : a.imag() > b.imag();
  };
  std::sort(x.begin(), x.end(), order);
  std::sort(y.begin(), y.end(), order);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(std::abs(x[i]) - std::abs(y[i])));
  return worst / std::max(std::abs(x.front()), 1e-300);
}

int runsFor(int n) { return n <= 256 ? 9 : (n <= 512 ? 5 : 3); }

void compareDefaults(int maxN) {
  std::printf("LAPACK eigenvalues (dgeev's steps, 1 thread), median ms; tuning reaches LAPACK: %s\n",
              lapackAedTuningActive() ? "yes" : "NO");
  std::printf("%6s %10s %12s %10s %8s %14s\n", "n", "matrix", "LAPACK's", "tuned", "ratio", "|Δλ|/ρ");
  for (int n : {128, 256, 512, 1024, 2048}) {
    if (n > maxN) break;
    for (const Kind& kind : kinds()) {
      Rng rng(static_cast<uint64_t>(n) * 7 + 1);
      const MatD a = kind.make(n, rng);
      std::vector<double> library, tuned;
      Eigenvalues withLibrary, withTuned;
      for (int r = 0; r < runsFor(n); ++r) {
        setLapackAedTuning(false);
        library.push_back(millisecondsOf(a, r == 0 ? &withLibrary : nullptr));
        setLapackAedTuning(true);
        tuned.push_back(millisecondsOf(a, r == 0 ? &withTuned : nullptr));
      }
      const double l = bench::median(library), t = bench::median(tuned);
      std::printf("%6d %10s %12.1f %10.1f %7.2fx %14.1e\n", n, kind.name, l, t, l / t,
                  largestDifference(withLibrary, withTuned));
      std::fflush(stdout);
    }
  }
}

void grid(int n, const std::string& kindName) {
  const Kind* kind = &kinds().front();
  for (const Kind& k : kinds())
    if (kindName == k.name) kind = &k;
  Rng rng(static_cast<uint64_t>(n) * 7 + 1);
  const MatD a = kind->make(n, rng);
  std::printf("%s %d×%d, median ms of %d runs\n%8s %8s %10s\n", kind->name, n, n, runsFor(n), "shifts", "window", "ms");
  setLapackAedTuning(false);
  std::vector<double> library;
  for (int r = 0; r < runsFor(n); ++r) library.push_back(millisecondsOf(a, nullptr));
  std::printf("%17s %10.1f\n", "LAPACK's", bench::median(library));
  setLapackAedTuning(true);
  for (int shifts : {8, 16, 32, 64})
    for (int window : {16, 24, 32, 48, 96}) {
      if (window < shifts) continue;
      setFixedAedSizes({shifts, window});
      std::vector<double> t;
      for (int r = 0; r < runsFor(n); ++r) t.push_back(millisecondsOf(a, nullptr));
      std::printf("%8d %8d %10.1f\n", shifts, window, bench::median(t));
      std::fflush(stdout);
    }
  setFixedAedSizes({});
}

}  // namespace

int main(int argc, char** argv) {
  if (!lapackAvailable()) {
    std::fprintf(stderr, "this build has no LAPACK (ATTNLAB_LAPACK)\n");
    return 1;
  }
  if (argc > 2 && std::strcmp(argv[1], "--grid") == 0) {
    grid(std::atoi(argv[2]), argc > 3 ? argv[3] : "softmax");
    return 0;
  }
  compareDefaults(argc > 1 ? std::atoi(argv[1]) : 1024);
  return 0;
}
