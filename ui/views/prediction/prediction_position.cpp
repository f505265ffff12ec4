#include "ui/views/prediction/prediction_position.h"

namespace attnlab::ui {

int predictionPosition(const ComputeResult& result) {
  const int n = result.trace().tokenCount();
  for (int p : result.params.selection.pinned)
    if (p >= 0 && p < n) return p;
  return n - 1;
}

}  // namespace attnlab::ui
