#pragma once
// Which position the Prediction views look at: the first pinned token when one is pinned (a click on a
// token in any view), else the model's default (core/predict/prediction.h defaultPosition): a masked LM's first
// [MASK], else the last token — the model's next-token prediction.
#include "ui/views/common/compute_result.h"

namespace attnlab::ui {

int predictionPosition(const ComputeResult& result);

}  // namespace attnlab::ui
