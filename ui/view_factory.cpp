#include "ui/view_factory.h"

#include "ui/collapse_view.h"
#include "ui/heatmap_view.h"
#include "ui/matrix_grid_view.h"
#include "ui/model_grid_view.h"
#include "ui/paths_view.h"

namespace attnlab::ui {

QStringList viewNames() { return {"heatmap", "model", "outputs", "qkv", "collapse", "paths"}; }

TraceView* createView(const QString& name, QWidget* parent) {
  if (name == "heatmap") return new HeatmapView(parent);
  if (name == "model") return new ModelGridView(parent);
  if (name == "outputs") return new HeadOutputsView(parent);
  if (name == "qkv") return new QkvView(parent);
  if (name == "collapse") return new CollapseView(parent);
  if (name == "paths") return new PathsView(parent);
  return nullptr;
}

}  // namespace attnlab::ui
