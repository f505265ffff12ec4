// Times the spectrum of a softmax attention matrix in double (core/spectra/spectrum.h): singular values,
// eigenvalues, both together as computeSpectrum runs them (the target), and the full head
// spectrum (three SVDs + eigenvalues, n ≤ 512 only), for a bidirectional head (the general case) and a
// causal one (triangular: its eigenvalues are its diagonal). Wall-clock medians of several runs.
//   bench_spectrum [max_n]    (default 1024)
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bench/bench_util.h"
#include "core/base/rng.h"
#include "core/compute/lapack_tuning.h"
#include "core/model/blocks.h"
#include "core/spectra/head_spectrum.h"
#include "core/spectra/spectrum.h"

using namespace attnlab;

namespace {

/// A head as the built-in model makes it: Q, K [n, 64] with N(0, 1) entries, scale 1/√64.
HeadTrace randomHead(int n, int d) {
  Rng rng(1234);
  HeadTrace h;
  h.q.resize(n, d);
  Mat k(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) {
      h.q(i, j) = static_cast<float>(rng.normal());
      k(i, j) = static_cast<float>(rng.normal());
    }
  h.keys = shareMat(std::move(k));
  h.scores = (h.q * h.k().transpose()) / std::sqrt(static_cast<float>(d));
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const int maxN = argc > 1 ? std::atoi(argv[1]) : 1024;
  std::printf("LAPACK shift sizes tuned (core/compute/lapack_tuning.h): %s\n", lapackAedTuningActive() ? "yes" : "NO");
  std::printf("%6s %13s %10s %10s %14s %14s %8s\n", "n", "attention", "svd ms", "eig ms", "spectrum ms",
              "head 3svd+eig", "target");
  for (int n : {64, 128, 256, 512, 1024, 2048}) {
    if (n > maxN) break;
    const HeadTrace h = randomHead(n, 64);
    for (bool causal : {false, true}) {
      const MatD a = headMatricesD(h, causal).attention;
      const int runs = n <= 256 ? 7 : (n <= 512 ? 3 : 1);
      const double svd = bench::medianOfRuns(runs, [&] { singularValues(a); });
      const double eig = bench::medianOfRuns(runs, [&] { eigenvalues(a); });
      // What the target times: singular values and eigenvalues together (computeSpectrum runs
      // them side by side on two threads).
      const double spectrum = bench::medianOfRuns(runs, [&] { computeSpectrum(a, true); });
      // The head spectrum (what `dump --spectrum` computes) only where it costs seconds at most.
      const double head = n <= 512 ? bench::medianOfRuns(runs, [&] { headSpectrum(h, causal); }) : NAN;
      const char* target = n == 256 ? "<= 10" : (n == 1024 ? "<= 500" : "");
      std::printf("%6d %13s %10.1f %10.1f %14.1f %14.1f %8s\n", n, causal ? "causal" : "bidirectional", svd, eig,
                  spectrum, head, target);
      std::fflush(stdout);
    }
  }
  return 0;
}
