// Issue 16's speed targets at the GPT-2-small shape (12 layers × 12 heads, d 768, vocabulary 50257), 64 tokens,
// on the random checkpoint bench_gpt2 writes to /tmp/attnlab-bench-gpt2-small (run bench_gpt2 first):
//   prediction + logit lens (last position) + attribution after a forward pass   ≤ 20 ms on top of the forward
//   one head's ablation → prediction (a forward pass with the intervention)      ≤ 100 ms
//   the full head-patching map (144 heads, no residual map)                      ≤ 3 s
// The patching map is timed on the 64-token text and on the classic IOI pair (14 tokens), each also through
// one full forward pass per head (Model's default lastRowsWith, the path before the resumed runs) for reference.
// --reference 0 skips those; --patching 0 skips the patching maps. Other shapes: --dir
// /tmp/attnlab-bench-smollm2-135m-f32 (written by bench_decoder --shape smollm2-135m). Also the residual patching
// map ((layers + 1) × 64 forward passes) and a 13 × 64 logit-lens grid, untargeted.
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include "bench/bench_util.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/full_forward_model.h"
#include "core/predict/attribution.h"
#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "core/predict/run_comparison.h"

using namespace attnlab;
using namespace attnlab::bench;

namespace {

TokenizedText repeatTo(const TokenizedText& sentence, int tokens) {
  TokenizedText text;
  for (int i = 0; i < tokens; ++i) {
    text.ids.push_back(sentence.ids[static_cast<size_t>(i) % sentence.ids.size()]);
    text.tokens.push_back(sentence.tokens[static_cast<size_t>(i) % sentence.tokens.size()]);
  }
  return text;
}

/// The sentence's tokens, or — for the shape-only checkpoints bench_decoder writes, given some other model's
/// tokenizer.json for the pieces — fixed ids standing for it, with `swap` exchanging two of them as the
/// corrupted text does.
TokenizedText sentenceOrIds(const Model& model, const std::string& sentence, bool swap) {
  const int vocab = model.unembedding()->vocab;
  try {
    TokenizedText t = model.tokenize(sentence);
    if (std::all_of(t.ids.begin(), t.ids.end(), [&](int id) { return id < vocab; })) return t;
  } catch (const std::exception&) {
  }
  TokenizedText t;
  for (int i = 0; i < 14; ++i) {
    const int j = swap && (i == 3 || i == 12) ? 15 - i : i;  // positions 3 and 12 exchanged
    t.ids.push_back((1000 + 7919 * j) % vocab);
    t.tokens.push_back(Token{"#" + std::to_string(t.ids.back())});
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-gpt2-small"},
                                            {"--tokens", "64"},
                                            {"--threads", "2"},
                                            {"--resid", "0"},
                                            {"--reference", "1"},
                                            {"--patching", "1"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  const std::string dir = opt["--dir"];
  const int tokens = std::stoi(opt["--tokens"]), threads = std::stoi(opt["--threads"]);
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  if (!fileExists(dir + "/model.safetensors")) {
    std::cerr << "no checkpoint at " << dir << ": run bench_gpt2 first (it writes one)\n";
    return 1;
  }
  const auto model = loadCheckpoint(dir);
  const TokenizedText text = repeatTo(
      sentenceOrIds(*model, "The quick brown fox jumps over the lazy dog while the cat watches. ", false), tokens);
  const TokenizedText corrupt = repeatTo(
      sentenceOrIds(*model, "The quick brown cat jumps over the lazy dog while the fox watches. ", true), tokens);
  std::printf("%s, %d tokens, %d threads\n", model->info().name.c_str(), tokens, threads);

  Trace trace;
  const double forwardMs = medianMs([&] { trace = model->forward(text); }, 1.0, 10);
  report("forward pass (for reference)", forwardMs, 1e9);
  const double predictMs = medianMs([&] { predict(*model, trace, -1, 10); });
  const double lensMs = medianMs([&] { logitLens(*model, trace, -1, 5); });
  // What the Prediction view runs: the prediction taken from the lens's last row, one product.
  const double readoutMs = medianMs([&] { readPosition(*model, trace, -1, 10, 1.0, 1); });
  const double attributionMs = medianMs([&] {
    const HeadContributions parts = headContributions(*model, text, trace, -1);
    directLogitAttribution(*model, trace, parts, predict(*model, trace, -1, 1)[0].id);
  });
  OutputProjections projections;
  const double readMs = medianOfRuns(1, [&] { projections = readOutputProjections(*model, text); });
  const int predicted = predict(*model, trace, -1, 1)[0].id;  // the prediction is timed on its own above
  const double cachedMs =
      medianMs([&] { directLogitAttribution(*model, trace, headContributions(projections, trace, -1), predicted); });
  report("prediction (top 10, last position)", predictMs, 20.0);
  const ModelInfo info = model->info();
  const std::string rows = std::to_string(info.layers + 1), heads = std::to_string(info.layers * info.heads);
  report(("logit lens (" + rows + " rows, last position)").c_str(), lensMs, 20.0);
  report(("attribution (probe forward pass + " + heads + " heads)").c_str(), attributionMs, 20.0);
  report("attribution from W_O read once per model", cachedMs, 20.0);
  report("  reading W_O once per model (probe passes of 128 rows)", readMs, 1e9);
  report("prediction and logit lens in one product (readPosition)", readoutMs, 20.0);
  {
    Mat streams(info.layers + 1, info.dModel);  // the lens's rows at the last position
    streams.row(0) = trace.embeddings.bottomRows(1);
    for (int l = 0; l < info.layers; ++l) streams.row(l + 1) = trace.layers[l].residualOut.bottomRows(1);
    const double productMs = medianMs([&] { model->unembedding()->logits(streams); });
    const double flops = 2.0 * streams.rows() * info.dModel * static_cast<double>(model->unembedding()->vocab);
    std::printf("  of which the unembedding product: %.2f ms (%.0f GFLOP/s)\n", productMs, flops / productMs / 1e6);
  }
  report("prediction + logit lens + attribution, on top of forward", readoutMs + cachedMs, 20.0);
  report(("logit-lens grid (" + rows + " streams x " + std::to_string(tokens) + " positions)").c_str(),
         medianOfRuns(3, [&] { logitLensGrid(*model, trace); }), 1e9);

  Intervention iv;
  iv.ablate = {{5, 3}};
  const double ablationMs = medianMs(
      [&] {
        const AblationEffect e = ablationEffect(*model, text, trace, iv);
        predict(*model, e.ablated, -1, 10);
      },
      1.0, 10);
  report("one head ablated -> forward + prediction + KL", ablationMs, 100.0);
  // What the window runs when a head is switched on or off: the ablated pass copying the layers before the
  // head's from the last run (Intervention::reuse); the readout, copying the lens rows of the unchanged streams
  // from the plain run's; the comparison of the plain run's logits (kept by the Prediction view) with the
  // ablated run's (the readout's last row); the attribution from the cached W_O applied to the directions of the
  // plain run's top 10 predictions (kept by the Attribution view; made again when the toggle's prediction is none).
  const PositionReadout plainReadout = readPosition(*model, trace, -1, 10, 1.0, 1);
  std::vector<int> plainTop;
  for (const TokenScore& t : plainReadout.top) plainTop.push_back(t.id);
  const std::vector<ProjectedForm> plainForms = projectedForms(*model, projections, plainTop);
  const auto formOf = [&](int target) {
    for (const ProjectedForm& f : plainForms)
      if (f.target == target) return f;
    return projectedForm(*model, projections, target);
  };
  report("  projecting W_O on the top 10 predictions' directions (after an edit)",
         medianMs([&] { projectedForms(*model, projections, plainTop); }), 1e9);
  const Mat plainFinal = trace.layers.back().residualOut;
  for (const int layer : {0, info.layers / 2, info.layers - 1}) {
    Intervention toggle;
    toggle.ablate = {{layer, 0}};
    toggle.reuse = &trace;
    toggle.reuseLayers = firstDifferingLayer(Intervention{}, toggle, info.layers);
    Trace ablated;
    PositionReadout readout;
    const auto forwardPart = [&] { ablated = model->forward(text, {}, toggle); };
    const auto readoutPart = [&] { readout = readPosition(*model, ablated, -1, 10, 1.0, 1, plainReadout); };
    const auto comparePart = [&] { compareRuns(plainReadout.logits, readout.logits, -1); };
    const auto attributionPart = [&] { directLogitAttribution(*model, ablated, formOf(readout.top[0].id), -1); };
    const std::string what = "toggling head " + std::to_string(layer) + ".0";
    report((what + " -> forward from its layer + readout + KL + attribution").c_str(),
           medianMs(
               [&] {
                 forwardPart();
                 readoutPart();
                 comparePart();
                 attributionPart();
               },
               1.0, 10),
           100.0);
    std::printf("  of which forward %.2f, readout %.2f, KL %.2f, attribution %.2f ms (prediction %s)\n",
                medianMs(forwardPart, 0.5, 10), medianMs(readoutPart), medianMs(comparePart), medianMs(attributionPart),
                readout.top[0].id == plainTop[0]                                  ? "kept"
                : std::count(plainTop.begin(), plainTop.end(), readout.top[0].id) ? "changed, among the top 10"
                                                                                  : "changed: W_O projected again");
    report("  the same without copying lens rows, logits or the projected W_O",
           medianMs(
               [&] {
                 const Trace t = model->forward(text, {}, toggle);
                 const PositionReadout r = readPosition(*model, t, -1, 10, 1.0, 1);
                 compareRuns(*model->unembedding(), plainFinal, t.layers.back().residualOut, -1, r.top[0].id);
                 directLogitAttribution(*model, t, headContributions(projections, t, -1), r.top[0].id);
               },
               1.0, 10),
           1e9);
  }

  if (opt["--patching"] == "0") return 0;
  const int target = model->vocabularyId("Ġfox"), versus = model->vocabularyId("Ġcat");
  const int vocab = model->unembedding()->vocab;
  if (target < 0 || versus < 0 || target >= vocab || versus >= vocab) {  // a shape-only checkpoint
    std::printf("patching maps: no vocabulary here; bench_decoder --shape NAME --patch 1 times them\n");
    return 0;
  }
  const FullForwardModel full(*model);
  auto patchMap = [&](const Model& m, const TokenizedText& a, const TokenizedText& b, int t, int v) {
    return medianOfRuns(1, [&] { activationPatching(m, a, b, t, v, {}, false); });
  };
  report(("head patching map (" + heads + " heads), " + std::to_string(tokens) + " tokens").c_str(),
         patchMap(*model, text, corrupt, target, versus), 3000.0);
  const bool reference = opt["--reference"] != "0";  // the full-forward maps take ~10 s each
  if (reference) report("  the same, a full forward pass per head", patchMap(full, text, corrupt, target, versus), 1e9);
  const TokenizedText ioiClean = model->tokenize("When Mary and John went to the store, John gave a drink to");
  const TokenizedText ioiCorrupt = model->tokenize("When Mary and John went to the store, Mary gave a drink to");
  const int mary = model->vocabularyId("ĠMary"), john = model->vocabularyId("ĠJohn");
  const std::string ioi =
      "head patching map (" + heads + " heads), IOI pair, " + std::to_string(ioiClean.ids.size()) + " tokens";
  report(ioi.c_str(), patchMap(*model, ioiClean, ioiCorrupt, mary, john), 3000.0);
  if (reference)
    report("  the same, a full forward pass per head", patchMap(full, ioiClean, ioiCorrupt, mary, john), 1e9);
  if (opt["--resid"] != "0")
    report("head + residual patching map (144 + 13 x 64 passes)",
           medianOfRuns(1, [&] { activationPatching(*model, text, corrupt, target, versus, {}, true); }), 1e9);
  return 0;
}
