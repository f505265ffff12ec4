#pragma once
// JSON of the spectra analyses, public contract of the command line:
//   `attnlab dump --spectrum` adds "spectrum": {"singular_values", "numerical_rank", "effective_rank",
//     "eigenvalues": [[re, im], …], "scores_singular_values", "exp_scores_singular_values", …}
//   `attnlab rank-demo` prints {"x", "rank_outer", "rank_exp", "outer_singular_values",
//     "exp_singular_values", …, "sweep": [{"scale", "rank", "effective_rank"}, …] with --sweep}.
#include <vector>

#include <nlohmann/json.hpp>

#include "core/spectra/exp_rank_demo.h"
#include "core/spectra/head_spectrum.h"

namespace attnlab {

nlohmann::json vectorToJson(const VecD& v);
nlohmann::json eigenvaluesToJson(const std::vector<std::complex<double>>& ev);
nlohmann::json headSpectrumToJson(const HeadSpectrum& s);
/// `sweep` may be null (no "sweep" key then).
nlohmann::json rankDemoToJson(const RankDemoResult& r, const std::vector<RankSweepPoint>* sweep);

}  // namespace attnlab
