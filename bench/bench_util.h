#pragma once
// Timing helpers for the bench programs: medians of repeated runs, in milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <utility>
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

/// The median of `values` (the upper one of an even count).
inline double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

/// Median ms of exactly `runs` calls of `fn`, no warm-up: for computations of tens of ms to seconds,
/// where medianMs's 20 repetitions would take minutes.
inline double medianOfRuns(int runs, const std::function<void()>& fn) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(std::move(ms));
}

/// One result row: what was measured, the median, the target, and whether it is met.
inline void report(const char* what, double ms, double targetMs) {
  std::printf("%-58s %10.4f ms   target %8.3f ms   %s\n", what, ms, targetMs, ms <= targetMs ? "ok" : "MISSED");
}

}  // namespace attnlab::bench
