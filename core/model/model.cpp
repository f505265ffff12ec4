#include "core/model/model.h"

#include <stdexcept>

namespace attnlab {

Mat Model::attentionOutput(int layer, const Mat& /*concat*/) const {
  throw std::logic_error("model '" + info().name + "' keeps every layer's attention output in its traces (layer " +
                         std::to_string(layer) + " asked to recompute it)");
}

}  // namespace attnlab
