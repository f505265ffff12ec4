// Times the spectrum of a softmax attention matrix in double (core/spectrum.h): singular values
// (BDCSVD, values only) + eigenvalues (EigenSolver, no vectors), and the full head spectrum of the
// spectrum view (three SVDs + eigenvalues). Prints a table with the targets; the median of
// several runs, wall-clock and CPU time of this thread (the machine may be shared). The spectrum is
// svd + eig; the head column is the spectrum view's work (n ≤ 512 only).
//   bench_spectrum [max_n]    (default 1024)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "core/blocks.h"
#include "core/head_spectrum.h"
#include "core/rng.h"
#include "core/spectrum.h"

using namespace attnlab;

namespace {

struct Times {
  double wall, cpu;
};

double cpuMs() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

template <typename F>
Times medianOf(int runs, F&& f) {
  std::vector<double> wall, cpu;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpuMs();
    f();
    cpu.push_back(cpuMs() - c0);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

/// A head as the built-in model makes it: Q, K [n, 64] with N(0, 1) entries, scale 1/√64.
HeadTrace randomHead(int n, int d) {
  Rng rng(1234);
  HeadTrace h;
  h.q.resize(n, d);
  h.k.resize(n, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) {
      h.q(i, j) = static_cast<float>(rng.normal());
      h.k(i, j) = static_cast<float>(rng.normal());
    }
  h.scores = (h.q * h.k.transpose()) / std::sqrt(static_cast<float>(d));
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const int maxN = argc > 1 ? std::atoi(argv[1]) : 1024;
  std::printf("%6s %18s %18s %20s %18s %8s\n", "n", "svd ms wall/cpu", "eig ms wall/cpu", "spectrum ms wall/cpu",
              "head 3svd+eig ms", "target");
  for (int n : {64, 128, 256, 512, 1024, 2048}) {
    if (n > maxN) break;
    const HeadTrace h = randomHead(n, 64);
    const MatD a = headMatricesD(h, false).attention;
    const int runs = n <= 256 ? 7 : (n <= 512 ? 3 : 1);
    const Times svd = medianOf(runs, [&] { singularValues(a); });
    const Times eig = medianOf(runs, [&] { eigenvalues(a); });
    // The head spectrum (what the spectrum view computes) only where it costs seconds at most.
    const Times head = n <= 512 ? medianOf(runs, [&] { headSpectrum(h, false); }) : Times{NAN, NAN};
    const char* target = n == 256 ? "<= 10" : (n == 1024 ? "<= 500" : "");
    std::printf("%6d %9.1f/%-8.1f %9.1f/%-8.1f %10.1f/%-9.1f %18.1f %8s\n", n, svd.wall, svd.cpu, eig.wall, eig.cpu,
                svd.wall + eig.wall, svd.cpu + eig.cpu, head.wall, target);
    std::fflush(stdout);
  }
  return 0;
}
