#include "core/train/encdec_probe.h"

namespace attnlab {

EncDecProbe encDecProbe(EncDecTask task, const TinyEncDecConfig& c) {
  const int n = c.maxLength;
  std::vector<int> symbols(static_cast<std::size_t>(n)), answer;
  // Distinct symbols in a shuffled-looking order (stride 7 through the alphabet) so that sorting moves them: in
  // alphabetical order the sort task's alignment would be the diagonal, indistinguishable from copying.
  // translate: the source language is the alphabet's first half.
  const int alphabet = task == EncDecTask::Translate ? c.symbols / 2 : c.symbols;
  for (int i = 0; i < n; ++i)
    symbols[static_cast<std::size_t>(i)] =
        kEncDecFirstSymbol + (task == EncDecTask::Sort ? (7 * i + 3) % alphabet : i % alphabet);
  EncDecProbe p;
  encDecAnswer(task, symbols, answer, p.aligned, c.symbols);
  p.source = symbols;
  p.source.push_back(kEncDecEos);
  p.target.push_back(kEncDecEos);
  p.target.insert(p.target.end(), answer.begin(), answer.end());
  p.labels = answer;
  p.labels.push_back(kEncDecEos);
  return p;
}

double alignmentScore(const Eigen::MatrixXf& map, const std::vector<int>& aligned) {
  if (aligned.empty()) return 0.0;
  double sum = 0;
  for (std::size_t i = 0; i < aligned.size(); ++i) sum += map(static_cast<Eigen::Index>(i), aligned[i]);
  return sum / static_cast<double>(aligned.size());
}

EncDecSnapshot encDecSnapshot(const EncDecTrainSettings& s, const TinyEncDecParams<float>& p, int perLength) {
  const TinyEncDecConfig& c = s.model;
  EncDecSnapshot out;
  const EncDecProbe probe = encDecProbe(s.task, c);
  const int n = static_cast<int>(probe.source.size());
  TinyEncDecForward<float> f;
  tinyEncDecForward(c, p, probe.source.data(), probe.target.data(), 1, n, n, f);
  out.cross.resize(f.decoder.size());
  out.alignment.resize(f.decoder.size());
  for (std::size_t l = 0; l < f.decoder.size(); ++l)
    for (int h = 0; h < c.heads; ++h) {
      out.cross[l].push_back(f.decoder[l].cross.attention[static_cast<std::size_t>(h)]);  // sequence 0: index h
      out.alignment[l].push_back(alignmentScore(out.cross[l].back(), probe.aligned));
    }
  out.heldOut = evaluateTinyEncDec(s.task, c, p, s.minLength, perLength, 0x5EED);
  return out;
}

}  // namespace attnlab
