// Issue 17's corpus-scan target at the GPT-2-small shape (12 layers × 12 heads, d 768, vocabulary 50257) on the
// random checkpoint bench_gpt2 writes to /tmp/attnlab-bench-gpt2-small (run bench_gpt2 first):
//   a 20,000-token corpus, windows of 256 tokens, 2 threads: the whole scan (strongest contexts, DLA magnitude,
//   the ablation effect on the first 64 tokens)    ≤ 30 s
// The text is words drawn from a fixed list with a fixed seed, in sentences and lines. Prints where the time went
// and the peak resident memory, which must stay near the model's (the scan keeps no maps).
#include <omp.h>
#include <sys/resource.h>

#include <Eigen/Core>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>

#include "bench/bench_util.h"
#include "core/atlas/corpus_scan.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"

using namespace attnlab;
using namespace attnlab::bench;

namespace {

double peakResidentMb() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return static_cast<double>(r.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

/// About `words` words from a fixed list, 8–15 to a sentence, 4 sentences to a line.
std::string corpusText(int words) {
  static const char* kWords[] = {"the",   "cat",     "sat",   "on",    "mat",    "and",   "a",     "dog",
                                 "ran",   "to",      "house", "while", "bird",   "sang",  "in",    "tree",
                                 "every", "morning", "light", "fell",  "across", "quiet", "river", "where",
                                 "old",   "man",     "kept",  "his",   "boat",   "near",  "stone", "bridge"};
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> word(0, 31), length(8, 15);
  std::string text;
  for (int w = 0, sentence = 0; w < words; ++sentence) {
    const int n = length(rng);
    for (int i = 0; i < n; ++i, ++w) text += std::string(i == 0 ? "" : " ") + kWords[word(rng)];
    text += sentence % 4 == 3 ? ".\n" : ". ";
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-gpt2-small"},
                                            {"--words", "17500"},
                                            {"--window", "256"},
                                            {"--threads", "2"},
                                            {"--ablation-tokens", "64"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  const std::string dir = opt["--dir"];
  const int threads = std::stoi(opt["--threads"]);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  if (!fileExists(dir + "/model.safetensors")) {
    std::cerr << "no checkpoint at " << dir << ": run bench_gpt2 first (it writes one)\n";
    return 1;
  }
  const auto model = loadCheckpoint(dir);
  const std::string file = (std::filesystem::temp_directory_path() / "attnlab-bench-corpus.txt").string();
  std::ofstream(file, std::ios::binary) << corpusText(std::stoi(opt["--words"]));
  const double modelMb = peakResidentMb();

  CorpusOptions options;
  options.files = {file};
  options.window = std::stoi(opt["--window"]);
  options.ablationTokens = std::stoi(opt["--ablation-tokens"]);
  CorpusTimings timings;
  options.timings = &timings;
  HeadAtlas atlas;
  atlas.layers = model->info().layers;
  atlas.heads = model->info().heads;
  int updates = 0;
  const auto t0 = std::chrono::steady_clock::now();
  scanCorpus(*model, options, atlas, [&](const HeadAtlas&, double) { ++updates; });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("%s, %lld corpus tokens, window %d, %d threads, %d progress updates\n", model->info().name.c_str(),
              atlas.corpusTokens, options.window, threads, updates);
  report("corpus scan (contexts, DLA, ablation on 64 tokens)", seconds * 1000.0, 30000.0);
  std::printf(
      "  W_O read %.2f s, reading+tokenizing %.2f s, forward passes %.2f s, contexts %.2f s, DLA %.2f s, pattern "
      "scores %.2f s, "
      "publishing %.2f s, ablation %.2f s\n",
      timings.projections, timings.reading, timings.forward, timings.contexts, timings.dla, timings.patterns,
      timings.publishing, timings.ablation);
  std::printf("  peak resident %.0f MB (%.0f MB after opening the model and writing the corpus)\n", peakResidentMb(),
              modelMb);
  for (const std::string& note : atlas.notes) std::printf("  note: %s\n", note.c_str());
  std::filesystem::remove(file);
  return 0;
}
