#pragma once
// Changes made to a forward pass to ask what a component does (DESIGN.md, Round two):
//   ablation   a head's output (its d_head columns of the concatenated heads, before the output
//              projection) set to zero, to its mean over the positions of the same input, or (resample) to its
//              output in a run of another text, row by row;
//   patching   a head's output, or one row of the residual stream entering a layer, taken from another
//              run (the clean run, of the same token length) instead of this one's.
// Every model applies them at the same two places, through the functions below, so an ablated or patched
// run differs from the plain one only where the intervention says.
#include <string>
#include <vector>

#include "core/model/trace.h"

namespace attnlab {

class ForwardHooks;

struct HeadRef {
  int layer = 0, head = 0;
  bool operator==(const HeadRef& o) const { return layer == o.layer && head == o.head; }
  bool operator<(const HeadRef& o) const { return layer != o.layer ? layer < o.layer : head < o.head; }
};

/// "L.H,L.H,…" → heads, in the order given; throws InputError "<what> expects heads as LAYER.HEAD,… got
/// '<item>'" for a malformed item or an empty list.
std::vector<HeadRef> parseHeadList(const std::string& list, const std::string& what);
/// Heads → ["L.H", …].
std::vector<std::string> formatHeadList(const std::vector<HeadRef>& heads);

enum class AblationMode { Zero, Mean, Resample };
/// "zero", "mean", "resample".
const char* ablationModeName(AblationMode mode);
/// The inverse; throws InputError "<what> must be zero, mean or resample, got '<name>'".
AblationMode parseAblationMode(const std::string& name, const std::string& what);

struct Intervention {
  std::vector<HeadRef> ablate;
  AblationMode mode = AblationMode::Zero;
  /// Resample: the run of another text (same model, at least as many tokens) whose head outputs at rows 0 … n − 1
  /// replace the ablated heads' (a causal model's run of a longer text holds its prefix's rows).
  const Trace* resample = nullptr;
  const Trace* source = nullptr;    ///< the run patched from (same token count); needed by the two below
  std::vector<HeadRef> patchHeads;  ///< head outputs copied from `source`
  /// The row of patchHeads' outputs copied (head × position patching); −1 = every row.
  int patchPosition = -1;
  /// For resumed runs (resumed_runs.h): the base run was made with these same ablations (activation patching on top
  /// of ablations), so a run differs from it only from its first patch on.
  bool ablatedInBase = false;
  /// Residual row copied from `source`: the stream entering layer `residualLayer` (= the layer count: the
  /// stream after the last layer) at position `residualPosition`; −1 = none.
  int residualLayer = -1, residualPosition = -1;
  /// A traced run of the same token ids by the same model whose interventions agree with these in layers
  /// [0, reuseLayers) (firstDifferingLayer): GPT-2 and the decoders copy those layers from it instead of computing
  /// them — the window's ablation toggle then recomputes only the layers from the switched head on. Other models
  /// run in full; the result is the same either way.
  const Trace* reuse = nullptr;
  int reuseLayers = 0;
  /// Whether the pass keeps every head's n × n maps (trace.h; Auto: short inputs only). Not a change to the
  /// numbers: long inputs attend in tiles and the maps are recomputed on demand (head_maps.h).
  MapKeeping maps = MapKeeping::Auto;
  /// The previous traced run of this model with the same ablations (the GUI's last result): a causal pass that keeps
  /// no maps takes the rows before the first changed token from it (prefix_reuse.h). Ignored otherwise.
  const Trace* prefix = nullptr;
  /// Callbacks that read or change the activations as the pass makes them (forward_hooks.h; Python's
  /// run_with_hooks); applied after the ablations and patches of the same site. Not with `reuse` or `prefix`.
  const ForwardHooks* hooks = nullptr;

  bool empty() const { return ablate.empty() && patchHeads.empty() && residualLayer < 0; }
  /// Whether the ablations change each row from that row's own values (zero, resample), not from every row (mean).
  bool ablationIsRowwise() const { return mode != AblationMode::Mean; }
};

/// Throws InputError naming a head or a layer that the model does not have, a position outside the text,
/// or a patch without a source of the same length.
void checkIntervention(const Intervention& iv, int layers, int heads, int tokens);

/// Applies the ablations and head patches of `layer` to concat [n, heads·d_head] — the heads' traced outputs, so the
/// trace shows what the next block received; returns the heads changed.
std::vector<int> interveneOnConcat(const Intervention& iv, int layer, int heads, int dHead, Mat& concat);

/// The first layer in which two ablation-only interventions differ (a head in one list and not the other; either
/// list's first layer when the modes differ); `layers` when they are the same, 0 when either patches anything.
int firstDifferingLayer(const Intervention& a, const Intervention& b, int layers);

/// The layers a forward pass of `ids` may copy from iv.reuse: iv.reuseLayers when the reused trace holds the same
/// ids and at least that many layers, else 0. Copies them into `trace` (after its embeddings) and leaves `stream`
/// at the last copied layer's output.
int copyReusedLayers(const Intervention& iv, const std::vector<int>& ids, Trace& trace, Mat& stream);

/// Applies the row-wise ablations (zero, resample) and the head patches of `layer` to concat rows [first, first + m)
/// (concat [m, heads·d_head]): what interveneOnConcat does to those rows when the ablations are row-wise.
void interveneOnConcatRows(const Intervention& iv, int layer, int heads, int dHead, int first, Mat& concat);

/// Applies the residual patch for the stream entering `layer` (layer = layer count: the final stream).
void interveneOnResidual(const Intervention& iv, int layer, Mat& stream);
/// The same for the stream entering `layer` < layer count, and on the trace's record of that stream (its embeddings or
/// the previous layer's output), so that Trace::layerInput is what the layer read.
void interveneOnTracedResidual(const Intervention& iv, int layer, Trace& trace, Mat& stream);

}  // namespace attnlab
