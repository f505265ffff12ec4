#pragma once
// The one parameter struct of DESIGN.md: the GUI edits it, a session file stores it, the command
// line reads it. Serialised by params_json.h.
#include <string>
#include <vector>

#include "core/collapse/collapse_settings.h"
#include "core/model/model_config.h"
#include "core/session/atlas_settings.h"
#include "core/session/display_settings.h"
#include "core/session/prediction_settings.h"
#include "core/spectra/spectra_settings.h"
#include "core/variants/variant_settings.h"

namespace attnlab {

/// What the views show: the selected layer/head and the current view.
struct ViewSelection {
  int layer = 0;
  int head = 0;
  std::string view = "heatmap";
  /// Pinned tokens (indices into the sentence's tokens, ascending, no repeats): outlined in every
  /// heatmap, their lines alone in the head view, their summed attention read out. Indices past the
  /// end of the sentence are kept (typing may bring them back) and ignored when drawing.
  std::vector<int> pinned;
  /// An encoder–decoder's stack the single-text views show: "encoder" (the source), "decoder" (the target) or "cross"
  /// (the decoder's cross-attention: target rows × source columns, where a view can draw it).
  std::string stack = "encoder";
  /// How the cross-attention view draws its map: "heatmap" or "alignment" (lines between the two texts).
  std::string cross = "heatmap";
};

struct Params {
  std::string sentence = "the cat walks on the street";
  /// An encoder–decoder's target text (the decoder's; `sentence` is then the source): typed, or filled by Translate.
  std::string target;
  bool lowercase = true;
  /// A text longer than the model takes: 0 refuses it (the message names both lengths); N > 0 keeps its last
  /// min(N, the model's limit) tokens, a leading BOS kept first (issue 18). kKeepAsManyAsFit: the model's limit.
  int keepLastTokens = 0;
  static constexpr int kKeepAsManyAsFit = 1 << 30;
  std::string modelDir;  ///< empty: the built-in model; else a checkpoint folder on disk
  ModelConfig model;
  ViewSelection selection;
  CollapseSettings collapse;      ///< the rank-collapse explorer (collapse/paths views, `attnlab collapse`)
  VariantSettings variants;       ///< the attention-variant comparison (variants view, dump --variants)
  SpectraSettings spectra;        ///< spectra, rank and feature-map analyses
  DisplaySettings display;        ///< colour map and theme of the views and figures
  PredictionSettings prediction;  ///< sampling, attribution target, ablated heads, patching (issue 16)
  AtlasSettings atlas;            ///< the head atlas: probe, corpus, the scatter's axes (issue 17)
};

}  // namespace attnlab
