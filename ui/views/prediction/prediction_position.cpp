#include "ui/views/prediction/prediction_position.h"

#include "core/predict/prediction.h"

namespace attnlab::ui {

int predictionPosition(const ComputeResult& result) {
  const int n = result.trace().tokenCount();
  for (int p : result.params.selection.pinned)
    if (p >= 0 && p < n) return p;
  return result.run->model ? defaultPosition(*result.run->model, result.trace()) : n - 1;
}

}  // namespace attnlab::ui
