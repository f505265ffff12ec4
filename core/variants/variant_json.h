#pragma once
// The variant comparison as JSON, a public contract of `attnlab dump --variants`:
//   "variants": {"NAME": {"attention": [[...]], "output": [[...]], "rank": r, "entropy": e,
//                         "sparsity": s, "rel_error": x, "output_mse": y, "description": "…"}}
//   "performer_curve": {"features": [1, 2, …], "redraws": R,
//                       "series": [{"kind": "positive", "orthogonal": false,
//                                   "rel_error": [...], "rel_error_std": [...]}]}
#include <nlohmann/json.hpp>

#include "core/variants/variant_analysis.h"

namespace attnlab {

nlohmann::json toJson(const VariantComparison& c);
nlohmann::json toJson(const PerformerCurve& c);

}  // namespace attnlab
