#include "core/spectra/spectrum_json.h"

namespace attnlab {

using nlohmann::json;

json vectorToJson(const VecD& v) { return json(std::vector<double>(v.data(), v.data() + v.size())); }

json eigenvaluesToJson(const std::vector<std::complex<double>>& ev) {
  json out = json::array();
  for (const auto& z : ev) out.push_back({z.real(), z.imag()});
  return out;
}

json headSpectrumToJson(const HeadSpectrum& s) {
  return json{{"n", s.n},
              {"d_head", s.dHead},
              {"singular_values", vectorToJson(s.attention.singularValues)},
              {"rank_threshold", s.attention.threshold},
              {"numerical_rank", s.attention.numericalRank},
              {"effective_rank", s.attention.effectiveRank},
              {"eigenvalues", eigenvaluesToJson(s.attention.eigenvalues)},
              {"spectral_radius", spectralRadius(s.attention.eigenvalues)},
              {"scores_singular_values", vectorToJson(s.scores.singularValues)},
              {"scores_numerical_rank", s.scores.numericalRank},
              {"scores_effective_rank", s.scores.effectiveRank},
              {"exp_scores_singular_values", vectorToJson(s.expScores.singularValues)},
              {"exp_scores_numerical_rank", s.expScores.numericalRank},
              {"exp_scores_effective_rank", s.expScores.effectiveRank}};
}

json rankDemoToJson(const RankDemoResult& r, const std::vector<RankSweepPoint>* sweep) {
  json j{{"n", r.n},
         {"scale", r.scale},
         {"seed", r.seed},
         {"x", vectorToJson(r.x)},
         {"rank_outer", r.outer.numericalRank},
         {"rank_exp", r.exp.numericalRank},
         {"effective_rank_outer", r.outer.effectiveRank},
         {"effective_rank_exp", r.exp.effectiveRank},
         {"threshold_outer", r.outer.threshold},
         {"threshold_exp", r.exp.threshold},
         {"outer_singular_values", vectorToJson(r.outer.singularValues)},
         {"exp_singular_values", vectorToJson(r.exp.singularValues)}};
  if (sweep) {
    json points = json::array();
    for (const RankSweepPoint& p : *sweep)
      points.push_back({{"scale", p.scale}, {"rank", p.rank}, {"effective_rank", p.effectiveRank}});
    j["sweep"] = points;
  }
  return j;
}

}  // namespace attnlab
