// Speed of the rank-collapse explorer, against issue 5's target: depth 32, n = 32, d = 64,
// 7 configurations × 5 seeds, the full figure in ≤ 300 ms on the worker. Also the inspector (one
// configuration to the selected depth) and the path analysis, which the views run on their own jobs.
// Plain std::chrono: best and median of several repetitions, printed as a table.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <vector>

#include "core/run/collapse_experiment.h"
#include "core/run/path_analysis.h"

using namespace attnlab;

namespace {

struct Timing {
  double best, median, cpu;  ///< wall-clock best and median, and the median's process CPU time
};

Timing measure(const std::function<void()>& work, int repetitions) {
  std::vector<std::pair<double, double>> ms;  // (wall, cpu)
  for (int i = 0; i < repetitions; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    work();
    const double cpu = 1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    ms.emplace_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), cpu);
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front().first, ms[ms.size() / 2].first, ms[ms.size() / 2].second};
}

void row(const char* what, const Timing& t, double target) {
  std::printf("%-52s %9.1f %9.1f %9.1f %9s %s\n", what, t.best, t.median, t.cpu,
              target > 0 ? std::to_string(int(target)).c_str() : "-",
              target > 0 ? (t.median <= target ? "ok" : "SLOW") : "");
}

}  // namespace

int main() {
  Params p;
  p.collapse.depth = 32;
  p.collapse.tokens = 32;
  p.collapse.dModel = 64;
  p.collapse.heads = 4;
  p.collapse.seeds = 5;
  p.collapse.configs = CollapseSettings::allStackConfigs();
  // CPU time is the work done over all threads: on a machine shared with other jobs it says what the
  // figure costs, where wall-clock time also says how busy the machine was.
  std::printf("%-52s %9s %9s %9s %9s\n", "case", "best ms", "median ms", "cpu ms", "target");
  row("figure: depth 32, n 32, d 64, 7 configs x 5 seeds", measure([&] { runCollapse(p); }, 7), 300);
  Params deep = p;
  deep.collapse.depth = 128;
  row("figure: depth 128, n 32, d 64, 7 configs x 5 seeds", measure([&] { runCollapse(deep); }, 3), 0);
  p.collapse.inspectDepth = 32;
  p.collapse.inspectConfig = StackConfig::PreLn;
  row("inspector: pre-ln to depth 32, seed 0", measure([&] { inspectCollapse(p); }, 7), 0);
  row("paths: depth 32, 5 seeds x 16 paths per length", measure([&] { runPathAnalysis(p); }, 5), 0);
  row("paths: depth 128, 5 seeds x 16 paths per length", measure([&] { runPathAnalysis(deep); }, 3), 0);
  const CollapseResult r = runCollapse(p);
  std::printf("\nreading: %s\n", r.reading.c_str());
  for (std::size_t i = 0; i < r.curves.size(); ++i) std::printf("  %s\n", r.readings[i].c_str());
  return 0;
}
