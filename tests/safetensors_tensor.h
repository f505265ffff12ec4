#pragma once
// A checkpoint tensor read straight from its safetensors file, for tests that compute by hand from the stored weights
// (not through the model's own packed copies).
#include <string>

#include "core/base/tensor.h"
#include "core/checkpoint/safetensors.h"

namespace attnlab::test {

/// Tensor `name` of `f` as float64 [rows, cols] (a vector: [n, 1]); empty when the file has no such tensor.
inline MatD tensor(SafetensorsFile& f, const std::string& name) {
  const TensorInfo* t = f.find(name);
  if (!t) return MatD();
  const Eigen::Index rows = t->shape.empty() ? 1 : t->shape[0], cols = t->shape.size() > 1 ? t->shape[1] : 1;
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(f.floats(*t), rows,
                                                                                                 cols)
      .cast<double>();
}

}  // namespace attnlab::test
