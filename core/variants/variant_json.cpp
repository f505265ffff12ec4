#include "core/variants/variant_json.h"

#include <cmath>

#include "core/model/trace_json.h"

namespace attnlab {
namespace {

/// JSON has no ∞/NaN: such a value (an error against an all-zero reference) becomes null.
nlohmann::json finite(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json finiteArray(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(finite(x));
  return a;
}

}  // namespace

nlohmann::json toJson(const VariantComparison& c) {
  nlohmann::json out = nlohmann::json::object();
  for (const VariantResult& r : c.variants) {
    out[r.name] = {{"description", r.description},
                   {"attention", matrixToJson(r.attention)},
                   {"output", matrixToJson(r.output)},
                   {"rank", r.metrics.rank},
                   {"entropy", finite(r.metrics.entropy)},
                   {"sparsity", finite(r.metrics.sparsity)},
                   {"rel_error", finite(r.metrics.relError)},
                   {"output_mse", finite(r.metrics.outputMse)}};
  }
  return out;
}

nlohmann::json toJson(const PerformerCurve& c) {
  nlohmann::json series = nlohmann::json::array();
  for (const CurveSeries& s : c.series)
    series.push_back({{"kind", toString(s.kind)},
                      {"orthogonal", s.orthogonal},
                      {"rel_error", finiteArray(s.meanError)},
                      {"rel_error_std", finiteArray(s.stdError)}});
  return {{"features", c.features}, {"redraws", c.redraws}, {"series", std::move(series)}};
}

}  // namespace attnlab
