#include "ui/compute_result.h"

#include <algorithm>

namespace attnlab::ui {

QStringList ComputeResult::tokenLabels() const {
  QStringList labels;
  if (!run) return labels;
  for (const std::string& t : run->trace.tokens) labels << QString::fromStdString(t);
  return labels;
}

int ComputeResult::layer() const {
  if (!run || run->trace.layerCount() == 0) return 0;
  return std::clamp(params.selection.layer, 0, run->trace.layerCount() - 1);
}

int ComputeResult::head() const {
  if (!run || run->trace.headCount() == 0) return 0;
  return std::clamp(params.selection.head, 0, run->trace.headCount() - 1);
}

}  // namespace attnlab::ui
