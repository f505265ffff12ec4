#include "ui/shell/view_factory.h"

#include "ui/views/attention/compare_view.h"
#include "ui/views/attention/cross_attention_view.h"
#include "ui/views/attention/head_view.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/attention/model_grid_view.h"
#include "ui/views/depth/collapse_view.h"
#include "ui/views/depth/paths_view.h"
#include "ui/views/heads/head_contexts_view.h"
#include "ui/views/heads/head_scatter_view.h"
#include "ui/views/heads/similar_heads_view.h"
#include "ui/views/inside_head/matrix_grid_view.h"
#include "ui/views/prediction/attribution_view.h"
#include "ui/views/prediction/patching_view.h"
#include "ui/views/prediction/prediction_view.h"
#include "ui/views/spectra/rank_demo_view.h"
#include "ui/views/spectra/rank_table_view.h"
#include "ui/views/spectra/spectrum_view.h"
#include "ui/views/variants/complexity_view.h"
#include "ui/views/variants/feature_map_view.h"
#include "ui/views/variants/head_size_view.h"
#include "ui/views/variants/variants_view.h"

namespace attnlab::ui {

QStringList viewNames() {
  return {"heatmap",       "model",         "outputs",    "qkv",          "variants",  "complexity",
          "spectrum",      "rank-table",    "rank-demo",  "feature-maps", "head-size", "collapse",
          "paths",         "headview",      "prediction", "attribution",  "patching",  "heads",
          "similar_heads", "head_contexts", "compare",    "cross"};
}

TraceView* createView(const QString& name, QWidget* parent) {
  if (name == "heatmap") return new HeatmapView(parent);
  if (name == "model") return new ModelGridView(parent);
  if (name == "outputs") return new HeadOutputsView(parent);
  if (name == "qkv") return new QkvView(parent);
  if (name == "variants") return new VariantsView(parent);
  if (name == "complexity") return new ComplexityView(parent);
  if (name == "collapse") return new CollapseView(parent);
  if (name == "paths") return new PathsView(parent);
  if (name == "spectrum") return new SpectrumView(parent);
  if (name == "rank-table") return new RankTableView(parent);
  if (name == "rank-demo") return new RankDemoView(parent);
  if (name == "feature-maps") return new FeatureMapView(parent);
  if (name == "head-size") return new HeadSizeView(parent);
  if (name == "headview") return new HeadView(parent);
  if (name == "compare") return new CompareView(parent);
  if (name == "cross") return new CrossAttentionView(parent);  // encoder–decoders (issue 33)
  if (name == "prediction") return new PredictionView(parent);
  if (name == "attribution") return new AttributionView(parent);
  if (name == "patching") return new PatchingView(parent);
  // The Heads views observe one store, so the atlas of a model is computed once for the three.
  if (name == "heads") return new HeadScatterView(&AtlasStore::shared(), parent);
  if (name == "similar_heads") return new SimilarHeadsView(&AtlasStore::shared(), parent);
  if (name == "head_contexts") return new HeadContextsView(&AtlasStore::shared(), parent);
  return nullptr;
}

}  // namespace attnlab::ui
