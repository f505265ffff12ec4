#include "core/atlas/atlas_builder.h"

#include "core/atlas/atlas_probe.h"
#include "core/atlas/head_similarity.h"
#include "core/atlas/probe_scores.h"

namespace attnlab {

HeadAtlas buildProbeAtlas(const Model& model, const AtlasOptions& options, const RunControl& control) {
  control.checkpoint(0.0);
  HeadAtlas atlas;
  atlas.probe = makeProbe(model, options.probeLength, options.probeSeed);
  atlas.notes = atlas.probe.notes;
  const ModelInfo info = model.info();
  checkTraceMemory(static_cast<long long>(atlas.probe.tokens.size()), info.layers, info.heads);
  auto trace = std::make_shared<Trace>(model.forward(probeText(atlas.probe), control.part(0.05, 0.7)));
  atlas.layers = trace->layerCount();
  atlas.heads = trace->headCount();
  atlas.metrics = probeScores(*trace, atlas.probe);
  control.checkpoint(0.75);
  atlas.similarity = headSimilarity(*trace, 64, control.part(0.75, 0.95));
  atlas.clusterOrder = clusterOrder(atlas.similarity);
  atlas.map2d = map2d(atlas.similarity);
  atlas.probeTrace = std::move(trace);
  control.checkpoint(1.0);
  return atlas;
}

}  // namespace attnlab
