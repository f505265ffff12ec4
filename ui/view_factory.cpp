#include "ui/view_factory.h"

#include "ui/collapse_view.h"
#include "ui/complexity_view.h"
#include "ui/feature_map_view.h"
#include "ui/head_size_view.h"
#include "ui/head_view.h"
#include "ui/heatmap_view.h"
#include "ui/matrix_grid_view.h"
#include "ui/model_grid_view.h"
#include "ui/paths_view.h"
#include "ui/rank_demo_view.h"
#include "ui/rank_table_view.h"
#include "ui/spectrum_view.h"
#include "ui/variants_view.h"

namespace attnlab::ui {

QStringList viewNames() {
  return {"heatmap",    "model",     "outputs",      "qkv",       "variants", "complexity", "spectrum",
          "rank-table", "rank-demo", "feature-maps", "head-size", "collapse", "paths",      "headview"};
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
  return nullptr;
}

}  // namespace attnlab::ui
