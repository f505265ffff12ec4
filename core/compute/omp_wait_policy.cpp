#include "core/compute/omp_wait_policy.h"

#include <time.h>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

/// Written by the start-up hook, before any static initialiser runs: plain zero-initialised storage (a
/// std::string here would be reset by its own constructor after the hook).
char applied[kOmpWaitAppliedSize];

bool given(const char* v) { return v && *v; }

double secondsNow() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

// The fastest of five timings of 1,000 pauses, so a preemption during one does not count (about 70 µs in all).
double measureNsPerPause() {
#if defined(__x86_64__) || defined(__i386__)
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const double t0 = secondsNow();
    for (int i = 0; i < 1000; ++i) __builtin_ia32_pause();
    const double ns = (secondsNow() - t0) * 1e6;  // per pause: seconds · 1e9 / 1000
    if (r == 0 || ns < best) best = ns;
  }
  return best;
#else
  return 0;
#endif
}

OmpWaitChoice decideOmpWait(const char* waitPolicy, const char* spinCount, double nsPerPause, double spinMicros) {
  OmpWaitChoice c;
  if (given(waitPolicy) || given(spinCount)) {
    c.userSet = true;
    return c;
  }
  const double ns = std::isfinite(nsPerPause) && nsPerPause > 0 ? nsPerPause : 10.0;  // libgomp's 100,000 a ms
  const double count = std::round(spinMicros * 1e3 / ns);
  c.spinCount = static_cast<long long>(std::clamp(count, 100.0, static_cast<double>(kLibgompDefaultSpinCount)));
  return c;
}

const char* ompWaitPolicyApplied() { return applied; }

char* ompWaitPolicyAppliedBuffer() { return applied; }

}  // namespace attnlab
