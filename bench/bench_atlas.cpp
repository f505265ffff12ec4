// Issue 17's speed targets for the head atlas's probe part, on the random GPT-2-small checkpoint bench_gpt2 writes to
// /tmp/attnlab-bench-gpt2-small (run bench_gpt2 first; --dir for another):
//   every probe score at T = 64 (probe, forward pass and scores)        ≤ 1 s
//   similarity + clustering + MDS of the 144 heads                     ≤ 100 ms
//   the same for 540 heads (synthetic causal attention, 30 × 18, n 129) stays interactive (≤ 1 s here)
// Also the copying scores (G = W_U·W_E once, then 144 d_head × d_head eigenproblems) and the whole buildProbeAtlas.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include "bench/bench_util.h"
#include "core/atlas/atlas_builder.h"
#include "core/atlas/atlas_probe.h"
#include "core/atlas/copying_score.h"
#include "core/atlas/head_similarity.h"
#include "core/atlas/probe_scores.h"
#include "core/base/json_file.h"
#include "core/base/rng.h"
#include "core/checkpoint/checkpoint.h"

using namespace attnlab;
using namespace attnlab::bench;

namespace {

/// `layers` × `heads` heads of random causal softmax rows over n tokens.
Trace syntheticTrace(int layers, int heads, int n) {
  Rng rng(17);
  Trace t;
  t.tokens.assign(static_cast<std::size_t>(n), "x");
  t.causal = true;
  for (int l = 0; l < layers; ++l) {
    LayerTrace layer;
    for (int h = 0; h < heads; ++h) {
      HeadTrace ht;
      ht.attention = Mat::Zero(n, n);
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) ht.attention(i, j) = static_cast<float>(std::exp(2.0 * rng.normal()));
        ht.attention.row(i) /= ht.attention.row(i).sum();
      }
      layer.heads.push_back(std::move(ht));
    }
    t.layers.push_back(std::move(layer));
  }
  return t;
}

double similarityClusterMap(const Trace& trace) {
  return medianOfRuns(5, [&] {
    const SimilarityMatrix s = headSimilarity(trace);
    clusterOrder(s);
    map2d(s);
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-gpt2-small"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  const std::string dir = opt["--dir"];
  if (!fileExists(dir + "/model.safetensors")) {
    std::cerr << "no checkpoint at " << dir << ": run bench_gpt2 first (it writes one)\n";
    return 1;
  }
  const auto model = loadCheckpoint(dir);
  const ModelInfo info = model->info();
  std::printf("%s: %d layers x %d heads, d %d\n", info.name.c_str(), info.layers, info.heads, info.dModel);
  Trace trace;
  AtlasProbe probe;
  const double probeMs = medianOfRuns(5, [&] {
    probe = makeProbe(*model, 64, 0);
    trace = model->forward(probeText(probe));
    probeScores(trace, probe);
  });
  report("probe scores, T = 64 (probe + forward + scores)", probeMs, 1000);
  report("  of which the scores", medianMs([&] { probeScores(trace, probe); }), 1000);
  report("similarity + clustering + MDS, 144 heads", similarityClusterMap(trace), 100);
  report("copying scores, 144 heads", medianOfRuns(3, [&] { copyingScores(*model); }), 1000);
  report("buildProbeAtlas (all of the above)", medianOfRuns(3, [&] { buildProbeAtlas(*model, {}); }), 2000);
  const Trace big = syntheticTrace(30, 18, 129);
  report("similarity + clustering + MDS, 540 heads (synthetic)", similarityClusterMap(big), 1000);
  const SimilarityMatrix s = headSimilarity(big);
  report("  of which the clustering", medianOfRuns(3, [&] { clusterOrder(s); }), 1000);
  report("  of which the MDS", medianOfRuns(3, [&] { map2d(s); }), 1000);
  return 0;
}
