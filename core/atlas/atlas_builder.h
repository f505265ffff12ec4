#pragma once
// Builds the head atlas (head_atlas.h) of a model on its probe: the probe [BOS] r₁…r_T r₁…r_T, one forward pass,
// every probe score, the copying score of every head's OV circuit, the heads' similarity on the probe, its
// clustering and 2-D map. The corpus scan (corpus_scan.h) refines it afterwards.
#include <memory>
#include <string>

#include "core/atlas/head_atlas.h"
#include "core/base/run_control.h"
#include "core/model/model.h"

namespace attnlab {

struct AtlasOptions {
  int probeLength = 64;              ///< T: the probe holds 2T random tokens (plus BOS)
  unsigned long long probeSeed = 0;  ///< the random tokens' seed
};

/// Shortens options.probeLength to fit a context of `maxTokens` (room for BOS and a closing special token) and
/// returns the note saying so ("probe shortened to 2 × 23 random tokens (asked: 2 × 64) to fit the model's context of
/// 48"), or "" when it fits. The window and `attnlab heads` both use it, so every model gets its atlas the same way
/// (the shipped induction model takes 33 tokens, the default probe 129).
std::string fitProbeToContext(AtlasOptions& options, int maxTokens);

/// The probe's forward pass with every head's map kept (HeadAtlas::probeTrace): what thumbnails and hover read. The
/// window drops it for models switched away from and runs it again on coming back (the scores are kept).
std::shared_ptr<const Trace> probeForward(const Model& model, const AtlasProbe& probe, const RunControl& control = {});

/// Throws InputError for a probe longer than the model's context (the message names both lengths) or T < 2, and
/// Cancelled through `control`.
HeadAtlas buildProbeAtlas(const Model& model, const AtlasOptions& options, const RunControl& control = {});

}  // namespace attnlab
