// Issue 31's append edit: typing at the end of a long text. The text of n tokens is run once (tiles and summaries,
// as the window runs a long input); then, each timed in the same run:
//   append   one token added at the end, the rows before it taken from the last run (Intervention::prefix): every
//            earlier K/V/residual row and every summary band reused, only the new row attended
//   append 8 eight tokens added at once (a pasted word)
//   replace  the last token changed, same length (the edit issue 18 made fast)
//   full     the grown text run from scratch: what an append cost when its summaries could not be taken (every row
//            attended again; the products of the old rows as well)
// Then the memory a model switch gives back (issue 31): resident memory before the first run, after the long runs,
// after dropping them and running a small built-in model (d 32), and after returnFreedMemory() (malloc_trim).
//   bench_decoder --shape smollm2-135m first (random weights at SmolLM2-135M's shape), then
//   bench_append [--dir /tmp/attnlab-bench-smollm2-135m-f32] [--tokens 1000,3000,8192] [--runs 3] [--threads 2]
// Target (issue 31, 2 cores): append of one token at 3,000 tokens ≤ 1.5 s.
#include <omp.h>

#include <Eigen/Core>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "bench/bench_util.h"
#include "bench/synthetic_ids.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/hf_config.h"
#include "core/compute/heap_policy.h"
#include "core/run/model_factory.h"
#include "core/session/params.h"

using namespace attnlab;
using namespace attnlab::bench;

namespace {

double residentMb() { return static_cast<double>(residentBytes()) / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-smollm2-135m-f32"},
                                            {"--tokens", "1000,3000,8192"},
                                            {"--threads", "2"},
                                            {"--runs", "3"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  const int threads = std::stoi(opt["--threads"]), runs = std::stoi(opt["--runs"]);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  const double startMb = residentMb();
  std::shared_ptr<const Model> model;
  try {
    // As bench_decoder opens it: the random checkpoint has no tokenizer (the texts here are ids).
    const std::string dir = opt["--dir"];
    model = std::make_shared<const DecoderModel>(readHfConfig(dir + "/config.json"), nullptr,
                                                 openCheckpointWeights(dir), "smollm2-135m");
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n(run bench_decoder --shape smollm2-135m first)\n";
    return 1;
  }
  const ModelInfo info = model->info();
  const double openedMb = residentMb();
  std::printf("%s: %d layers x %d heads (%d kv), d %d, %d threads; resident %.0f MB at start, %.0f MB opened\n",
              info.name.c_str(), info.layers, info.heads, info.kvHeads, info.dModel, threads, startMb, openedMb);
  std::stringstream list(opt["--tokens"]);
  double peakRunMb = 0;
  for (std::string item; std::getline(list, item, ',');) {
    // Room for the eight appended tokens within the model's positions: 8,192 runs as 8,184 + 1 (or 8) for SmolLM2.
    const int n = std::min(std::stoi(item), info.maxTokens - 8);
    const TokenizedText text = idsOf(*model, n + 8);
    TokenizedText base = text, one = text, eight = text, replaced;
    for (TokenizedText* t : {&base, &one}) {
      t->ids.resize(static_cast<std::size_t>(t == &base ? n : n + 1));
      t->tokens.resize(t->ids.size());
    }
    replaced = base;
    replaced.ids.back() = (replaced.ids.back() + 1) % model->vocabularySize();
    const Trace last = model->forward(base);
    Intervention edit;
    edit.prefix = &last;
    // Each timed call keeps its trace until the next begins, as the window keeps its last result.
    Trace out;
    const auto timed = [&](const TokenizedText& t, const Intervention& iv) {
      return medianOfRuns(runs, [&] {
        out = Trace();
        out = model->forward(t, {}, iv);
      });
    };
    const double appendMs = timed(one, edit), eightMs = timed(eight, edit), replaceMs = timed(replaced, edit);
    const double fullMs = timed(one, Intervention());
    std::printf("\n%d tokens (median of %d)\n", n, runs);
    report("  append one token (earlier rows and bands reused)", appendMs, n == 3000 ? 1500.0 : 1e9);
    report("  append eight tokens", eightMs, 1e9);
    report("  replace the last token (same length)", replaceMs, 1e9);
    report("  full pass of the grown text (every row again)", fullMs, 1e9);
    std::printf("  ratios: append / replace %.2f, append / full %.3f (full / append %.1fx)\n", appendMs / replaceMs,
                appendMs / fullMs, fullMs / appendMs);
    peakRunMb = std::max(peakRunMb, residentMb());
  }
  // A model switch: the long runs' traces are gone (the loop's scope), the big model is dropped, a small one runs.
  const double afterRunsMb = residentMb();
  model.reset();
  Params small;
  small.model.dModel = 32;
  small.sentence = "the cat sat on the mat";
  const std::shared_ptr<const Model> tiny = makeModel(small);
  const Trace t = tiny->forward(tiny->tokenize(small.sentence));
  const double switchedMb = residentMb();
  returnFreedMemory();
  const double trimmedMb = residentMb();
  std::printf(
      "\nresident memory: start %.0f MB, model opened %.0f MB, during the runs up to %.0f MB, after them "
      "%.0f MB;\n  after switching to a d-32 built-in model %.0f MB, after returnFreedMemory() %.0f MB "
      "(%.0f MB above the start)\n",
      startMb, openedMb, peakRunMb, afterRunsMb, switchedMb, trimmedMb, trimmedMb - startMb);
  return 0;
}
