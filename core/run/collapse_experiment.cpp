#include "core/run/collapse_experiment.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <omp.h>

#include "core/base/errors.h"
#include "core/base/parallel_jobs.h"
#include "core/base/rng.h"
#include "core/collapse/collapse_metrics.h"
#include "core/model/embedding.h"
#include "core/session/params_json.h"
#include "core/text/word_tokenizer.h"

namespace attnlab {
namespace {

std::vector<std::string> sentenceWords(const Params& p) {
  std::vector<std::string> words;
  for (const Token& t : tokenizeWords(p.sentence, WordTokenizerOptions{p.lowercase})) words.push_back(t.text);
  return words;
}

std::string formatNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

std::string layers(int n) { return std::to_string(n) + (n == 1 ? " layer" : " layers"); }

}  // namespace

uint64_t collapseWeightSeed(const CollapseSettings& s, int seedIndex) {
  return mixSeed(s.seed, static_cast<uint64_t>(seedIndex), 0x77);  // "w"
}

MatD collapseInput(const Params& p, int seedIndex) {
  const CollapseSettings& s = p.collapse;
  if (s.input == CollapseInput::Random)
    return randomStackInput(s.tokens, s.dModel, mixSeed(s.seed, static_cast<uint64_t>(seedIndex), 0x78));
  const std::vector<std::string> words = sentenceWords(p);
  if (words.empty()) throw InputError("the sentence has no tokens: type at least one word, or use random inputs");
  if (words.size() > 512)
    throw InputError("the sentence has " + std::to_string(words.size()) + " tokens; the deep stack takes at most 512");
  return embedTokens(words, s.dModel, p.model.position, p.model.seed).cast<double>();
}

std::vector<std::string> collapseTokenLabels(const Params& p) {
  if (p.collapse.input == CollapseInput::Sentence) return sentenceWords(p);
  std::vector<std::string> labels;
  for (int i = 0; i < p.collapse.tokens; ++i) labels.push_back("t" + std::to_string(i));
  return labels;
}

CollapseCurve aggregateRuns(StackConfig c, const std::vector<StackRun>& runs) {
  CollapseCurve curve;
  curve.config = c;
  std::size_t valid = runs.empty() ? 0 : runs[0].residual.size();
  for (std::size_t s = 0; s < runs.size(); ++s) {
    valid = std::min(valid, runs[s].residual.size());
    curve.perSeed.push_back(runs[s].residual);
    if (runs[s].stoppedAt >= 0 && (curve.stoppedAt < 0 || runs[s].stoppedAt < curve.stoppedAt)) {
      curve.stoppedAt = runs[s].stoppedAt;
      curve.stopReason = runs[s].stopReason;
      curve.stoppedSeed = static_cast<int>(s);
    }
  }
  std::vector<double> values(runs.size());
  for (std::size_t l = 0; l < valid; ++l) {
    for (std::size_t s = 0; s < runs.size(); ++s) values[s] = runs[s].residual[l];
    std::sort(values.begin(), values.end());
    const std::size_t m = values.size();
    curve.median.push_back(m % 2 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]));
    curve.min.push_back(values.front());
    curve.max.push_back(values.back());
  }
  return curve;
}

std::string readCurve(const CollapseCurve& curve, int depth) {
  const std::string name = displayName(curve.config);
  if (curve.median.empty()) return name + ": the inputs are outside the double range";
  const std::string stop = curve.stoppedAt < 0 ? std::string()
                                               : "values left the double range (" + curve.stopReason + ") at layer " +
                                                     std::to_string(curve.stoppedAt);
  for (int l = 0; l <= curve.validDepth(); ++l)
    if (curve.median[l] < kCollapseThreshold)
      return name + ": rank 1 after " + layers(l) + (stop.empty() ? "" : "; " + stop);
  if (!stop.empty()) return name + ": " + stop + ", residual " + formatNumber(curve.median.back()) + " before";
  return name + ": still " + formatNumber(curve.median.back()) + " after " + layers(depth) + ", no collapse";
}

std::string oneLineReading(const std::vector<CollapseCurve>& curves, int depth) {
  if (curves.empty()) return {};
  const auto collapses = [](const CollapseCurve& c) {
    return std::any_of(c.median.begin(), c.median.end(), [](double v) { return v < kCollapseThreshold; });
  };
  std::string line = readCurve(curves[0], depth);
  for (std::size_t i = 1; i < curves.size(); ++i)
    if (collapses(curves[i]) != collapses(curves[0])) return line + " · " + readCurve(curves[i], depth);
  return line;
}

CollapseResult runCollapse(const Params& p, const RunControl& control) {
  const auto t0 = std::chrono::steady_clock::now();
  const CollapseSettings& s = p.collapse;
  validate(s);
  const int dHead = s.dModel / s.heads;
  makeStackAttention(s.variant, dHead, 0);  // an unknown variant fails here, before any work
  CollapseResult result;
  result.settings = s;
  result.tokens = collapseTokenLabels(p);

  // Jobs of (seed, group of configurations). Within a job the configurations advance side by side,
  // layer by layer, on weights made once per layer; only with few seeds are the configurations split
  // into groups (each making the weights again) so that every thread has work.
  const int configs = static_cast<int>(s.configs.size());
  const int threads = std::max(1, omp_get_max_threads());
  const int groups = std::clamp((2 * threads + s.seeds - 1) / s.seeds, 1, configs);
  std::vector<std::vector<StackRun>> runs(configs, std::vector<StackRun>(s.seeds));
  StackOptions options;
  options.norm = s.norm;
  parallelJobs(s.seeds * groups, control, [&](int job) {
    const int i = job / groups, g = job % groups;
    std::vector<StackConfig> mine;
    std::vector<int> index;
    for (int c = g; c < configs; c += groups) {
      mine.push_back(s.configs[c]);
      index.push_back(c);
    }
    const uint64_t seed = collapseWeightSeed(s, i);
    std::vector<StackRun> done = runStacks(
        mine, s.dModel, s.heads, s.depth, collapseInput(p, i), randomLayerWeights(s.dModel, s.init, seed, s.mlpGain),
        makeStackAttention(s.variant, dHead, seed), options, RunControl{control.cancel, {}});
    for (std::size_t k = 0; k < done.size(); ++k) runs[index[k]][i] = std::move(done[k]);
  });

  for (int c = 0; c < configs; ++c) {
    result.curves.push_back(aggregateRuns(s.configs[c], runs[c]));
    result.readings.push_back(readCurve(result.curves.back(), s.depth));
  }
  result.reading = oneLineReading(result.curves, s.depth);
  result.elapsedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

LayerInspection inspectCollapse(const Params& p, const RunControl& control) {
  const CollapseSettings& s = p.collapse;
  validate(s);
  const int dHead = s.dModel / s.heads;
  LayerInspection in;
  in.config = s.inspectConfig;
  in.tokens = collapseTokenLabels(p);
  int depth = std::clamp(s.inspectDepth, 0, s.depth);
  // Depth 0 has no attention of its own: the first layer's, which acts on X_0, is shown.
  const uint64_t seed = collapseWeightSeed(s, 0);
  const MatD x0 = collapseInput(p, 0);
  const AttentionFn attend = makeStackAttention(s.variant, dHead, seed);
  StackOptions options;
  options.norm = s.norm;
  options.keepStates = options.keepAttention = true;
  const auto run = [&](int d) {
    options.keepOnlyLayer = d == 0 ? -1 : d;
    return runStacks({in.config}, s.dModel, s.heads, std::max(d, 1), x0,
                     randomLayerWeights(s.dModel, s.init, seed, s.mlpGain), attend, options, control)[0];
  };
  StackRun r = run(depth);
  if (r.reachedDepth() < depth) {
    // The run stopped early: show the last depth it reached.
    depth = std::max(r.reachedDepth(), 0);
    r = run(depth);
  }
  in.depth = depth;
  in.state = depth < static_cast<int>(r.states.size()) ? r.states[depth] : x0;
  in.residual = relativeResidual(in.state, s.norm);
  in.cosine = tokenCosineSimilarity(in.state);
  in.singular = singularValues(in.state);
  in.attentionLayer = std::max(depth, 1);
  if (in.attentionLayer - 1 < static_cast<int>(r.attention.size())) in.attention = r.attention[in.attentionLayer - 1];
  return in;
}

nlohmann::json collapseToJson(const CollapseResult& r) {
  using nlohmann::json;
  const int depth = r.settings.depth;
  json depths = json::array();
  for (int l = 0; l <= depth; ++l) depths.push_back(l);
  json configs = json::object(), readings = json::object();
  for (std::size_t i = 0; i < r.curves.size(); ++i) {
    const CollapseCurve& c = r.curves[i];
    const auto padded = [&](const std::vector<double>& v) {
      json a = json::array();
      for (int l = 0; l <= depth; ++l) a.push_back(l < static_cast<int>(v.size()) ? json(v[l]) : json(nullptr));
      return a;
    };
    json entry{{"median", padded(c.median)}, {"min", padded(c.min)}, {"max", padded(c.max)}};
    entry["stopped_at"] = c.stoppedAt >= 0 ? json(c.stoppedAt) : json(nullptr);
    entry["stop_reason"] = c.stoppedAt >= 0 ? json(c.stopReason) : json(nullptr);
    configs[toString(c.config)] = entry;
    readings[toString(c.config)] = r.readings[i];
  }
  return json{{"depths", depths},
              {"configs", configs},
              {"reading", r.reading},
              {"readings", readings},
              {"settings", toJson(r.settings)},
              {"elapsed_ms", r.elapsedMs}};
}

}  // namespace attnlab
