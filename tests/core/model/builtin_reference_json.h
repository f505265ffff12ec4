#pragma once
// Reading tests/reference/builtin_forward_reference.json (make_builtin_reference.py): its matrices, vectors and layer
// weights, and the error measure its tests report. Shared by test_reference_builtin.cpp (rungs 1–6) and
// test_reference_builtin_encdec.cpp (rung 7).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/model/builtin_model.h"

namespace attnlab::test {

/// A matrix of the reference file: rows of numbers. Inputs are rounded to float exactly as the
/// generator did (decimal → double → float); expected values stay double.
template <typename M>
M matrixFromJson(const nlohmann::json& rows) {
  M m(static_cast<Eigen::Index>(rows.size()), rows.empty() ? 0 : static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    if (static_cast<Eigen::Index>(rows[i].size()) != m.cols()) throw std::runtime_error("ragged matrix in reference");
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = static_cast<typename M::Scalar>(rows[i][j].get<double>());
  }
  return m;
}

inline Vec vectorFromJson(const nlohmann::json& values) {
  Vec v(static_cast<Eigen::Index>(values.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = static_cast<float>(values[i].get<double>());
  return v;
}

inline BuiltinLayerWeights weightsFromJson(const nlohmann::json& w) {
  BuiltinLayerWeights l;
  l.wq = matrixFromJson<Mat>(w.at("wq"));
  l.wk = matrixFromJson<Mat>(w.at("wk"));
  l.wv = matrixFromJson<Mat>(w.at("wv"));
  l.wo = matrixFromJson<Mat>(w.at("wo"));
  l.w1 = matrixFromJson<Mat>(w.at("w1"));
  l.b1 = vectorFromJson(w.at("b1"));
  l.w2 = matrixFromJson<Mat>(w.at("w2"));
  l.b2 = vectorFromJson(w.at("b2"));
  l.ln1Gamma = vectorFromJson(w.at("ln1_gamma"));
  l.ln1Beta = vectorFromJson(w.at("ln1_beta"));
  l.ln2Gamma = vectorFromJson(w.at("ln2_gamma"));
  l.ln2Beta = vectorFromJson(w.at("ln2_beta"));
  return l;
}

/// The same measure as attnlab::test::matricesClose, for the report of the worst entry per case.
inline double maxRelativeError(const Mat& got, const MatD& want) {
  double worst = 0;
  for (Eigen::Index i = 0; i < want.rows(); ++i)
    for (Eigen::Index j = 0; j < want.cols(); ++j) {
      const double err = std::abs(static_cast<double>(got(i, j)) - want(i, j)) / std::max(1.0, std::abs(want(i, j)));
      worst = std::isnan(err) ? INFINITY : std::max(worst, err);
    }
  return worst;
}

}  // namespace attnlab::test
