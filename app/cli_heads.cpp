#include <cmath>
#include <map>

#include "app/cli_commands.h"
#include "app/cli_progress.h"
#include "core/atlas/atlas_builder.h"
#include "core/atlas/corpus_scan.h"
#include "core/run/model_factory.h"

namespace attnlab::cli {

namespace {

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json gridJson(const std::vector<std::vector<double>>& grid) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : grid) {
    nlohmann::json r = nlohmann::json::array();
    for (double v : row) r.push_back(number(v));
    rows.push_back(r);
  }
  return rows;
}

nlohmann::json contextJson(const StrongContext& c) {
  return {{"text", c.text}, {"position", c.position}, {"score", number(c.score)}, {"kind", c.kind},
          {"key", c.key},   {"tokens", c.tokens},     {"source", c.source},       {"token_index", c.tokenIndex}};
}

}  // namespace

/// attnlab.heads/1 of an atlas: the probe, every metric, the similarity, its cluster order and map, the notes, and
/// (after a corpus scan) each head's `top` strongest contexts and the tokens scanned.
nlohmann::json headsJson(const HeadAtlas& atlas, int top) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, grid] : atlas.metrics) metrics[name] = gridJson(grid);
  nlohmann::json map = nlohmann::json::array();
  for (const auto& xy : atlas.map2d) map.push_back({number(xy[0]), number(xy[1])});
  nlohmann::json j = {{"schema", "attnlab.heads/1"},
                      {"layers", atlas.layers},
                      {"heads", atlas.heads},
                      {"probe_ids", atlas.probe.ids},
                      {"probe_tokens", atlas.probe.tokens},
                      {"probe_length", atlas.probe.repeat},
                      {"probe_seed", atlas.probe.seed},
                      {"metrics", metrics},
                      {"similarity", gridJson(atlas.similarity)},
                      {"cluster_order", atlas.clusterOrder},
                      {"map_2d", map},
                      {"notes", atlas.notes}};
  if (atlas.corpusTokens > 0 || !atlas.topExamples.empty()) {
    nlohmann::json examples = nlohmann::json::object();
    for (const auto& [key, contexts] : atlas.topExamples) {
      nlohmann::json list = nlohmann::json::array();
      std::map<std::string, int> listed;  // up to `top` of each kind ("output_norm", "attention_edge")
      for (const StrongContext& c : contexts)
        if (listed[c.kind]++ < top) list.push_back(contextJson(c));
      examples[key] = list;
    }
    j["top_examples"] = examples;
    j["corpus_tokens"] = atlas.corpusTokens;
  }
  return j;
}

// attnlab.heads/1: every head of the model scored on the probe [BOS] r… r… (core/atlas/atlas_builder.h), refined
// over --corpus files.
int runHeads(const Args& args) {
  const Params p = oneTextParamsFromArgs(args);
  const std::shared_ptr<const Model> model = makeModel(p);
  AtlasOptions options;
  options.probeLength = args.intValue("probe-length", options.probeLength, 2, 1 << 20);
  options.probeSeed = static_cast<unsigned long long>(args.intValue("probe-seed", 0, 0, 2147483647));
  const int top = args.intValue("top", 10, 1, 1000);
  // The default probe (2 × 64 + BOS) is longer than a 48-position model: shortened to fit, said in "notes", as the
  // window does (the command line refused it before).
  const std::string shortened = fitProbeToContext(options, model->info().maxTokens);
  HeadAtlas atlas = buildProbeAtlas(*model, options);
  if (!shortened.empty()) atlas.notes.insert(atlas.notes.begin(), shortened);
  if (args.has("corpus")) {  // refined over the user's text (core/atlas/corpus_scan.h)
    CorpusOptions corpus;
    corpus.files = args.repeated.at("corpus");
    corpus.window = args.intValue("window", corpus.window, 2, 1 << 20);
    corpus.top = top;
    corpus.ablationTokens = args.intValue("ablation-tokens", corpus.ablationTokens, 0, 1 << 20);
    StderrProgress progress("attnlab heads: corpus");  // ~34 s per MB of text on GPT-2 small
    scanCorpus(*model, corpus, atlas, [&](const HeadAtlas&, double fraction) { progress.report(fraction); });
  }
  writeText(args.value("out"), jsonText(headsJson(atlas, top), args.intValue("indent", -1, 0, 16)) + "\n");
  return 0;
}

}  // namespace attnlab::cli
