// Issue 31's patching maps on a real-size shape: by default the SmolLM2-135M shape with random weights
// (/tmp/attnlab-bench-smollm2-135m-f32, written by bench_decoder --shape smollm2-135m), a 58-token pair of fixed ids
// that differ at one position (--diff, default 48: where an IOI story mentions its subject again), target and versus
// the two ids there. Times, in one run:
//   the full map (all heads + the residual stream at every position) as the code before issue 31 made it (kept
//   below: one batch per layer and kind, every patch run), and as activationPatching makes it now (patches that copy
//   equal values, i.e. every row before the first differing token, left out);
//   heads only; positions only; with --head-position 1 also head × position.
// Prints each time and its ratio to the "before" time. The clock and the load are the caller's to record.
#include <omp.h>

#include <Eigen/Core>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "bench/bench_util.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/gpt2_model.h"
#include "core/predict/attribution.h"
#include "core/predict/patching.h"

using namespace attnlab;
using namespace attnlab::bench;

namespace {

/// activationPatching as it was before issue 31 (commit e655f25), for the comparison.
PatchingResult patchingBefore(const Model& model, const TokenizedText& clean, const TokenizedText& corrupt, int target,
                              int versus) {
  const Unembedding& u = *model.unembedding();
  const Trace cleanRun = model.forward(clean), corruptRun = model.forward(corrupt);
  const int layers = cleanRun.layerCount(), heads = cleanRun.headCount(), n = cleanRun.tokenCount();
  auto diffOf = [&](const Trace& t) {
    return logitDifference(u, t.layers.back().residualOut.row(n - 1).transpose(), target, versus);
  };
  PatchingResult r;
  r.cleanDiff = diffOf(cleanRun);
  r.corruptDiff = diffOf(corruptRun);
  const double span = r.cleanDiff - r.corruptDiff;
  auto effects = [&](const std::vector<Intervention>& ivs) {
    VecD e(static_cast<Eigen::Index>(ivs.size()));
    const std::vector<Vec> rows = model.lastRowsWith(corrupt, corruptRun, ivs);
    for (std::size_t i = 0; i < rows.size(); ++i)
      e(static_cast<Eigen::Index>(i)) = (logitDifference(u, rows[i], target, versus) - r.corruptDiff) / span;
    return e;
  };
  Intervention patch;
  patch.source = &cleanRun;
  r.heads.resize(layers, heads);
  for (int l = 0; l < layers; ++l) {
    std::vector<Intervention> ivs(static_cast<std::size_t>(heads), patch);
    for (int h = 0; h < heads; ++h) ivs[h].patchHeads = {{l, h}};
    r.heads.row(l) = effects(ivs).transpose();
  }
  r.resid.resize(layers + 1, n);
  for (int l = 0; l <= layers; ++l) {
    std::vector<Intervention> ivs(static_cast<std::size_t>(n), patch);
    for (int i = 0; i < n; ++i) {
      ivs[i].residualLayer = l;
      ivs[i].residualPosition = i;
    }
    r.resid.row(l) = effects(ivs).transpose();
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-smollm2-135m-f32"},
                                            {"--tokens", "58"},
                                            {"--diff", "48"},
                                            {"--threads", "2"},
                                            {"--before", "1"},
                                            {"--head-position", "0"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  const std::string dir = opt["--dir"];
  const int tokens = std::stoi(opt["--tokens"]), diff = std::stoi(opt["--diff"]), threads = std::stoi(opt["--threads"]);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  if (!fileExists(dir + "/model.safetensors")) {
    std::cerr << "no checkpoint at " << dir << ": run bench_decoder --shape smollm2-135m first (it writes one)\n";
    return 1;
  }
  if (diff < 0 || diff >= tokens) {
    std::cerr << "--diff must be a position of the text (0 … " << tokens - 1 << ")\n";
    return 1;
  }
  // bench_decoder's folders have no tokenizer: the model is built from config.json and the weights (as bench_generate
  // does), and the texts are ids.
  const HfConfig config = readHfConfig(dir + "/config.json");
  std::unique_ptr<Model> model;
  if (config.arch == HfArch::Gpt2)
    model = std::make_unique<Gpt2Model>(config, nullptr, openCheckpointWeights(dir), dir);
  else
    model = std::make_unique<DecoderModel>(config, nullptr, openCheckpointWeights(dir), dir);
  const int vocab = model->unembedding()->vocab;
  TokenizedText clean, corrupt;
  for (int i = 0; i < tokens; ++i) {
    clean.ids.push_back((1000 + 7919 * (i % 23)) % vocab);  // a repeating 23-token "story"
    clean.tokens.push_back(Token{"#" + std::to_string(clean.ids.back())});
  }
  corrupt = clean;
  corrupt.ids[static_cast<std::size_t>(diff)] = (clean.ids[static_cast<std::size_t>(diff)] + 4099) % vocab;
  const int target = clean.ids[static_cast<std::size_t>(diff)], versus = corrupt.ids[static_cast<std::size_t>(diff)];
  const ModelInfo info = model->info();
  std::printf("%s: %d layers x %d heads, %d tokens differing at %d, %d threads\n", info.name.c_str(), info.layers,
              info.heads, tokens, diff, threads);
  std::fflush(stdout);

  auto row = [](const char* what, double ms, double before, long long runs) {
    std::printf("%-46s %10.0f ms   %6.3f x before   %lld patched runs\n", what, ms, before > 0 ? ms / before : 0.0,
                runs);
    std::fflush(stdout);
  };
  double beforeMs = 0.0;
  PatchingResult before;
  if (opt["--before"] != "0") {
    beforeMs = medianOfRuns(1, [&] { before = patchingBefore(*model, clean, corrupt, target, versus); });
    row("all heads + positions, before", beforeMs, beforeMs,
        static_cast<long long>(info.layers) * info.heads + static_cast<long long>(info.layers + 1) * tokens);
  }
  auto timed = [&](const char* what, PatchMap map) {
    PatchingOptions o;
    o.map = map;
    PatchingResult r;
    const double ms = medianOfRuns(1, [&] { r = activationPatching(*model, clean, corrupt, target, versus, {}, o); });
    row(what, ms, beforeMs, r.runs);
    return r;
  };
  const PatchingResult after = timed("all heads + positions, now", PatchMap::All);
  if (before.heads.size() > 0) {
    const double span = std::abs(after.cleanDiff - after.corruptDiff);
    std::printf("  largest difference to before: heads %.2e, positions %.2e (clean - corrupt %.3g%s)\n",
                (after.heads - before.heads).cwiseAbs().maxCoeff(), (after.resid - before.resid).cwiseAbs().maxCoeff(),
                span, after.warning.empty() ? "" : ", below the warning's threshold");
  }
  timed("heads only", PatchMap::Heads);
  timed("positions only", PatchMap::Positions);
  if (opt["--head-position"] != "0") timed("head x position", PatchMap::HeadPositions);
  return 0;
}
