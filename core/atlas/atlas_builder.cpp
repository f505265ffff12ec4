#include "core/atlas/atlas_builder.h"

#include <cmath>

#include "core/atlas/atlas_probe.h"
#include "core/atlas/copying_score.h"
#include "core/atlas/head_similarity.h"
#include "core/atlas/probe_scores.h"

namespace attnlab {

std::string fitProbeToContext(AtlasOptions& options, int maxTokens) {
  const int fits = maxTokens > 0 ? (maxTokens - 2) / 2 : options.probeLength;
  if (options.probeLength <= fits || fits < 2) return {};  // fits, or too small a context for any probe (refused later)
  const std::string note = "probe shortened to 2 × " + std::to_string(fits) + " random tokens (asked: 2 × " +
                           std::to_string(options.probeLength) + ") to fit the model's context of " +
                           std::to_string(maxTokens);
  options.probeLength = fits;
  return note;
}

std::shared_ptr<const Trace> probeForward(const Model& model, const AtlasProbe& probe, const RunControl& control) {
  Intervention keepMaps;  // the probe's scores read every head's map
  keepMaps.maps = MapKeeping::Always;
  return std::make_shared<const Trace>(model.forward(probeText(probe), control, keepMaps));
}

HeadAtlas buildProbeAtlas(const Model& model, const AtlasOptions& options, const RunControl& control) {
  control.checkpoint(0.0);
  HeadAtlas atlas;
  atlas.probe = makeProbe(model, options.probeLength, options.probeSeed);
  atlas.notes = atlas.probe.notes;
  const ModelInfo info = model.info();
  checkTraceMemory(static_cast<long long>(atlas.probe.tokens.size()), info.layers, info.heads);
  std::shared_ptr<const Trace> trace = probeForward(model, atlas.probe, control.part(0.05, 0.7));
  atlas.layers = trace->layerCount();
  atlas.heads = trace->headCount();
  atlas.metrics = probeScores(*trace, atlas.probe);
  control.checkpoint(0.75);
  atlas.similarity = headSimilarity(*trace, 64, control.part(0.75, 0.95));
  atlas.clusterOrder = clusterOrder(atlas.similarity);
  atlas.map2d = map2d(atlas.similarity);
  atlas.probeTrace = std::move(trace);
  atlas.metrics["copying"] = copyingScores(model, control.part(0.95, 1.0));
  if (std::isnan(atlas.metrics["copying"][0][0]))
    atlas.notes.push_back("no copying score: the model has no token embedding and unembedding to read");
  control.checkpoint(1.0);
  return atlas;
}

}  // namespace attnlab
