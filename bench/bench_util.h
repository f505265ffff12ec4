#pragma once
// Timing helpers for the bench programs: median of repeated runs after a warm-up, in milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace attnlab::bench {

/// Runs `fn` until `minSeconds` have passed (at least `minReps` times) and returns the median ms.
inline double medianMs(const std::function<void()>& fn, double minSeconds = 0.5, int minReps = 20) {
  for (int i = 0; i < 3; ++i) fn();  // warm-up: caches, lazy allocations, thread pools
  std::vector<double> ms;
  const auto start = std::chrono::steady_clock::now();
  while (static_cast<int>(ms.size()) < minReps ||
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < minSeconds) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (ms.size() > 100000) break;
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

/// One result row: what was measured, the median, the target, and whether it is met.
inline void report(const char* what, double ms, double targetMs) {
  std::printf("%-58s %10.4f ms   target %8.3f ms   %s\n", what, ms, targetMs, ms <= targetMs ? "ok" : "MISSED");
}

}  // namespace attnlab::bench
