#include "core/model/layer_outputs.h"

#include <stdexcept>

#include "core/model/model.h"

namespace attnlab {

bool recomputesOutputs(const Trace& trace, int layer) {
  const LayerTrace& l = trace.layers[static_cast<std::size_t>(layer)];
  return l.attentionOut.size() == 0 && trace.outputsFrom != nullptr && l.concat.size() > 0;
}

Mat attentionOutRows(const Trace& trace, int layer, Eigen::Index first, Eigen::Index count) {
  const LayerTrace& l = trace.layers[static_cast<std::size_t>(layer)];
  if (!recomputesOutputs(trace, layer)) return l.attentionOut.middleRows(first, count);
  return trace.outputsFrom->attentionOutput(layer, l.concat.middleRows(first, count));
}

Mat mlpOutRows(const Trace& trace, int layer, Eigen::Index first, Eigen::Index count) {
  const LayerTrace& l = trace.layers[static_cast<std::size_t>(layer)];
  if (!recomputesOutputs(trace, layer))
    return l.mlpOut.size() > 0 ? Mat(l.mlpOut.middleRows(first, count)) : Mat(count, 0);
  // out = in + attention + mlp  →  mlp = out − in − attention   [count, d]
  return l.residualOut.middleRows(first, count) - trace.layerInput(layer).middleRows(first, count) -
         attentionOutRows(trace, layer, first, count);
}

Mat attentionOutOf(const Trace& trace, int layer) {
  return attentionOutRows(trace, layer, 0, trace.layers[static_cast<std::size_t>(layer)].residualOut.rows());
}

Mat mlpOutOf(const Trace& trace, int layer) {
  return mlpOutRows(trace, layer, 0, trace.layers[static_cast<std::size_t>(layer)].residualOut.rows());
}

}  // namespace attnlab
