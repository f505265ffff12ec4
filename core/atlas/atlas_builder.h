#pragma once
// Builds the head atlas (head_atlas.h) of a model on its probe: the probe [BOS] r₁…r_T r₁…r_T, one forward pass,
// every probe score, the copying score of every head's OV circuit, the heads' similarity on the probe, its
// clustering and 2-D map. The corpus scan (corpus_scan.h) refines it afterwards.
#include "core/atlas/head_atlas.h"
#include "core/base/run_control.h"
#include "core/model/model.h"

namespace attnlab {

struct AtlasOptions {
  int probeLength = 64;              ///< T: the probe holds 2T random tokens (plus BOS)
  unsigned long long probeSeed = 0;  ///< the random tokens' seed
};

/// Throws InputError for a probe longer than the model's context (the message names both lengths) or T < 2, and
/// Cancelled through `control`.
HeadAtlas buildProbeAtlas(const Model& model, const AtlasOptions& options, const RunControl& control = {});

}  // namespace attnlab
