// GPT-2-small-shaped forward pass with every attention map kept (the full Trace), on random weights.
//   bench_gpt2 [--dir DIR] [--tokens 64] [--threads 2] [--runs 20] [--logits 0|1]
// Writes DIR/{config.json, model.safetensors (≈500 MB, F32, N(0, 0.02)-like weights), vocab.json, merges.txt}
// once (reused when present), opens it like the GUI does (the product weights repacked, core/compute/packed_matrix.h;
// the rest mmapped), then times forward() — and with --logits 1 the logits of every position too (the unembedding,
// [tokens, 50257]: what the window's predictions and Python's run_with_cache compute after the pass).
// Prints resident memory after opening and after the runs, and the timing (median, min) with GFLOP/s.
// bench/pytorch_gpt2.py runs the same checkpoint in PyTorch; bench/compare.sh runs both.
#include <omp.h>

#include <sys/stat.h>
#include <time.h>
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench/gpt2_checkpoint.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/compute/packed_gemm.h"

using namespace attnlab;
using namespace attnlab::bench;

namespace {

double cpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double residentMb() {
  long pages = 0, resident = 0;
  std::ifstream("/proc/self/statm") >> pages >> resident;
  return resident * 4096.0 / 1e6;
}

/// Multiply-adds ×2 of the layer GEMMs and attention products, for GFLOP/s.
double forwardFlops(int n) {
  const double d = kD, perLayer = 2.0 * n * d * 3 * d + 2.0 * n * d * d + 2.0 * 2 * n * d * 4 * d + 2.0 * 2 * n * n * d;
  return perLayer * kLayers;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-gpt2-small"},
                                            {"--tokens", "64"},
                                            {"--threads", "2"},
                                            {"--runs", "20"},
                                            {"--logits", "0"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  const std::string dir = opt["--dir"];
  const int tokens = std::stoi(opt["--tokens"]), threads = std::stoi(opt["--threads"]), runs = std::stoi(opt["--runs"]);
  const bool withLogits = opt["--logits"] == "1";
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  try {
    if (!fileExists(dir + "/model.safetensors")) {
      std::cerr << "writing a random GPT-2-small checkpoint to " << dir << " …\n";
      writeCheckpoint(dir);
    }
    const double rssBefore = residentMb();
    const auto t0 = std::chrono::steady_clock::now();
    const auto model = loadCheckpoint(dir);
    const double openMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double rssOpen = residentMb();

    // `tokens` ids from a real sentence, repeated as needed.
    TokenizedText text = model->tokenize("The quick brown fox jumps over the lazy dog while the cat watches. ");
    const TokenizedText sentence = text;
    for (std::size_t i = 0; static_cast<int>(text.ids.size()) < tokens; ++i) {
      text.ids.push_back(sentence.ids[i % sentence.ids.size()]);
      text.tokens.push_back(sentence.tokens[i % sentence.tokens.size()]);
    }
    text.ids.resize(tokens);
    text.tokens.resize(tokens);

    std::vector<double> ms, cpu;
    for (int r = 0; r < runs + 3; ++r) {
      const auto s = std::chrono::steady_clock::now();
      const double c0 = cpuMs();
      const Trace trace = model->forward(text);
      Mat logits;
      if (withLogits) logits = model->unembedding()->logits(trace.layers.back().residualOut);
      const double e = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
      if (r >= 3) {  // the first runs page the weights in
        ms.push_back(e);
        cpu.push_back(cpuMs() - c0);
      }
      if (trace.layerCount() != kLayers || (withLogits && logits.rows() != tokens)) return 1;
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu.begin(), cpu.end());
    const double median = ms[ms.size() / 2];
    const double flops = forwardFlops(tokens) + (withLogits ? 2.0 * tokens * kD * kVocab : 0.0);
    const char* gemm = packedGemmKernel();
    std::printf(
        "attnlab  GPT-2 small, %d tokens, %d threads, %s products%s: median %.1f ms, min %.1f ms over %d runs "
        "(%.0f GFLOP/s); CPU time per run %.1f ms\n",
        tokens, threads, gemm, withLogits ? ", with the logits" : "", median, ms.front(), runs, flops / median / 1e6,
        cpu[cpu.size() / 2]);
    std::printf(
        "attnlab  open %.0f ms; resident memory %.0f MB before opening, %.0f MB after opening (product weights "
        "repacked, embeddings mmapped), %.0f MB after the runs (fp32 weights: %.0f MB)\n",
        openMs, rssBefore, rssOpen, residentMb(), 124.4e6 * 4 / 1e6);
  } catch (const InputError& e) {
    std::cerr << "bench_gpt2: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
