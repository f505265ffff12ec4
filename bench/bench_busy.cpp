// Issue 31, a busy laptop: the SmolLM2-shape 64-token forward pass with other work on every core.
//   setsid -w bench_busy [--autogroup-nice -20] [--dir /tmp/attnlab-bench-smollm2-135m-f32] [--tokens 64]
//                        [--threads 2] [--rounds 3] [--runs 7] [--budget 12] [--new-spin N]
// Each round times the pass quiet, then beside one busy loop per core that this program starts (threads spinning
// until it stops them; each ends by itself after 10 minutes at most), in three child processes each:
//   old       --threads threads as before issue 31: libgomp's own spin (GOMP_SPINCOUNT=300000, its default) and
//             all threads whatever the load (ATTNLAB_CONTENTION=off);
//   new       the same with the program's policy: the spin its start-up hook sets (core/compute/omp_wait_policy.h)
//             and one thread while the cores are busy (core/base/contention.h);
//   1 thread  the policy on one thread.
// Children, because libgomp reads its spin once, at start-up. A child times `--runs` passes after two warm-ups
// (fewer when they pass `--budget` seconds, at least three) and reports their median; the table gives every round
// and the median over rounds. Targets: busy new ≤ 1.2 × busy 1 thread; quiet new within ±5 % of quiet old.
// --new-spin N gives the new children GOMP_SPINCOUNT=N instead (to compare spins).
// On a machine shared with other people, Linux's autogroups share the cores fairly between sessions whatever the
// nice values: `setsid -w` and --autogroup-nice -20 (root) give this session (the bench, its busy loops and its
// children, fairly among themselves) most of the machine for the few minutes of the run, close to a quiet laptop.
// The load is printed before and after. The checkpoint is bench_decoder's: run `bench_decoder --shape
// smollm2-135m` once first.
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "core/base/contention.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/hf_config.h"
#include "core/compute/omp_wait_policy.h"

using namespace attnlab;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string line;
  std::getline(in, line);
  return line;
}

/// The child: opens the checkpoint as bench_decoder does and prints "median <ms> <runs>" and "policy <text>".
int runChild(std::map<std::string, std::string>& opt) {
  const int threads = std::stoi(opt["--threads"]), tokens = std::stoi(opt["--tokens"]);
  const int runs = std::stoi(opt["--runs"]);
  const double budget = std::stod(opt["--budget"]);
  omp_set_num_threads(threads);
  const std::string dir = opt["--dir"];
  HfConfig config = readHfConfig(dir + "/config.json");
  const DecoderModel model(std::move(config), nullptr, openCheckpointWeights(dir), "smollm2-135m");
  TokenizedText text;  // bench_decoder's ids
  for (int i = 0; i < tokens; ++i) {
    text.ids.push_back(static_cast<int>(std::int64_t{i} * 97 % model.vocabularySize()));
    text.tokens.push_back(Token{std::to_string(text.ids.back())});
  }
  for (int i = 0; i < 2; ++i) model.forward(text);
  std::vector<double> ms;
  const auto start = Clock::now();
  while (static_cast<int>(ms.size()) < runs && (ms.size() < 3 || secondsSince(start) < budget)) {
    const auto t0 = Clock::now();
    model.forward(text);
    ms.push_back(secondsSince(t0) * 1e3);
  }
  const ContentionMeter& meter = threadContention();
  std::printf("median %.3f %zu\npolicy %s\nmeter waited %.0f %% of the time: %s\n", bench::median(ms), ms.size(),
              ompWaitPolicyApplied(), 100 * meter.waitFraction(), meter.contended() ? "one thread" : "all threads");
  return 0;
}

struct ChildResult {
  double ms = 0;
  int runs = 0;
  std::string policy, meter;
};

/// Runs this program as a child with `env` (an `env` prefix) and `threads`; throws InputError if it fails.
ChildResult child(const std::string& self, std::map<std::string, std::string> opt, const std::string& env,
                  int threads) {
  std::string cmd = "env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u ATTNLAB_OMP_SPIN -u ATTNLAB_CONTENTION " + env + " ";
  cmd += "'" + self + "' --child 1";
  opt["--threads"] = std::to_string(threads);
  for (const auto& [k, v] : opt)
    if (k != "--child" && k != "--rounds" && k != "--new-spin" && k != "--autogroup-nice")
      cmd += " " + k + " '" + v + "'";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw InputError("cannot run " + cmd);
  ChildResult r;
  char line[512];
  while (std::fgets(line, sizeof line, p)) {
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    if (s.rfind("median ", 0) == 0) std::sscanf(s.c_str(), "median %lf %d", &r.ms, &r.runs);
    if (s.rfind("policy ", 0) == 0) r.policy = s.substr(7);
    if (s.rfind("meter ", 0) == 0) r.meter = s.substr(6);
  }
  if (pclose(p) != 0 || r.runs == 0) throw InputError("the child failed: " + cmd);
  return r;
}

/// One busy loop per core, each spinning until stop() or for at most ten minutes.
class BusyLoops {
 public:
  explicit BusyLoops(unsigned count) {
    for (unsigned i = 0; i < count; ++i)
      threads_.emplace_back([this] {
        const auto start = Clock::now();
        volatile std::uint64_t x = 1;
        while (!stop_.load(std::memory_order_relaxed) && secondsSince(start) < 600)
          for (int k = 0; k < 100000; ++k) x = x * 6364136223846793005ull + 1442695040888963407ull;
      });
  }
  ~BusyLoops() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-smollm2-135m-f32"},
                                            {"--tokens", "64"},
                                            {"--threads", "2"},
                                            {"--rounds", "3"},
                                            {"--runs", "7"},
                                            {"--budget", "12"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  try {
    if (!fileExists(opt["--dir"] + "/config.json"))
      throw InputError(opt["--dir"] + " has no checkpoint (run bench_decoder --shape smollm2-135m first)");
    if (opt.count("--child")) return runChild(opt);
    char self[4096] = {};
    if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) throw InputError("cannot find this program's path");
    const int threads = std::stoi(opt["--threads"]), rounds = std::stoi(opt["--rounds"]);
    const std::string newEnv = opt.count("--new-spin") ? "GOMP_SPINCOUNT=" + opt["--new-spin"] : "";
    if (opt.count("--autogroup-nice")) {
      std::ofstream group("/proc/self/autogroup");
      group << opt["--autogroup-nice"] << "\n";
      group.close();
      if (!group) throw InputError("cannot set /proc/self/autogroup (needs root for a negative nice)");
    }
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::ifstream groupIn("/proc/self/autogroup");
    std::string group;
    std::getline(groupIn, group);
    std::printf("SmolLM2-135M shape, %s tokens, %u cores, %s; load before: %s\n", opt["--tokens"].c_str(), cores,
                group.empty() ? "no autogroup" : group.c_str(), loadAverage().c_str());
    const char* names[6] = {"quiet old", "quiet new", "quiet 1 thread", "busy old", "busy new", "busy 1 thread"};
    std::vector<std::vector<double>> ms(6);
    for (int r = 0; r < rounds; ++r) {
      ChildResult res[6];
      for (int busy = 0; busy < 2; ++busy) {
        std::unique_ptr<BusyLoops> loops;
        if (busy) {
          loops = std::make_unique<BusyLoops>(cores);
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
        }
        res[3 * busy + 0] = child(self, opt, "GOMP_SPINCOUNT=300000 ATTNLAB_CONTENTION=off", threads);
        res[3 * busy + 1] = child(self, opt, newEnv, threads);
        res[3 * busy + 2] = child(self, opt, newEnv, 1);
      }
      if (r == 0) std::printf("old: %s\nnew: %s\n", res[0].policy.c_str(), res[1].policy.c_str());
      std::printf("round %d, the meter at the end of each child (contention.h):", r + 1);
      for (int i = 0; i < 6; ++i) std::printf(" %s: %s;", names[i], res[i].meter.c_str());
      std::printf("\nround %d:", r + 1);
      for (int i = 0; i < 6; ++i) {
        ms[i].push_back(res[i].ms);
        std::printf("  %s %.1f ms (%d)", names[i], res[i].ms, res[i].runs);
      }
      std::printf("\n");
    }
    double m[6];
    for (int i = 0; i < 6; ++i) m[i] = bench::median(ms[i]);
    std::printf("medians over %d rounds (ms; %d threads unless 1 thread):\n", rounds, threads);
    for (int i = 0; i < 6; ++i) std::printf("  %-16s %8.1f\n", names[i], m[i]);
    std::printf("busy new / busy 1 thread:  %.2f  (target <= 1.20: %s)\n", m[4] / m[5],
                m[4] <= 1.2 * m[5] ? "ok" : "MISSED");
    std::printf("busy old / busy 1 thread:  %.2f\n", m[3] / m[5]);
    std::printf("quiet new / quiet old:     %.3f (target 0.95-1.05: %s)\n", m[1] / m[0],
                m[1] >= 0.95 * m[0] && m[1] <= 1.05 * m[0] ? "ok" : "MISSED");
    std::printf("quiet 1 thread / quiet old: %.2f\n", m[2] / m[0]);
    std::printf("load after: %s\n", loadAverage().c_str());
  } catch (const std::exception& e) {
    std::cerr << "bench_busy: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
