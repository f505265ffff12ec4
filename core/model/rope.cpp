#include "core/model/rope.h"

#include <cmath>

namespace attnlab {

std::vector<double> ropeInverseFrequencies(const RopeSpec& s, int dHead, int tokens) {
  const int half = dHead / 2;
  double theta = s.theta;
  if (s.scaling == RopeScaling::Dynamic && s.maxPositions > 0 && tokens > s.maxPositions)
    theta *= std::pow(s.factor * tokens / s.maxPositions - (s.factor - 1.0), static_cast<double>(dHead) / (dHead - 2));
  std::vector<double> inv(static_cast<std::size_t>(half));
  for (int i = 0; i < half; ++i) inv[i] = 1.0 / std::pow(theta, 2.0 * i / dHead);
  if (s.scaling == RopeScaling::Linear)
    for (double& f : inv) f /= s.factor;
  if (s.scaling == RopeScaling::Llama3) {
    const double lowWavelen = s.originalMaxPositions / s.lowFreqFactor;
    const double highWavelen = s.originalMaxPositions / s.highFreqFactor;
    for (double& f : inv) {
      const double wavelen = 2.0 * M_PI / f;
      if (wavelen > lowWavelen) {
        f /= s.factor;
      } else if (wavelen >= highWavelen) {  // the band between: blend
        const double smooth =
            (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        f = (1.0 - smooth) * f / s.factor + smooth * f;
      }
    }
  }
  return inv;
}

RopeTables ropeTables(const RopeSpec& spec, int dHead, int tokens) {
  const std::vector<double> inv = ropeInverseFrequencies(spec, dHead, tokens);
  const int half = dHead / 2;
  RopeTables t{Mat(tokens, half), Mat(tokens, half)};
  for (int p = 0; p < tokens; ++p)
    for (int i = 0; i < half; ++i) {
      const double angle = p * inv[i];
      t.cos(p, i) = static_cast<float>(std::cos(angle));
      t.sin(p, i) = static_cast<float>(std::sin(angle));
    }
  return t;
}

void applyRope(Eigen::Ref<Mat> x, int heads, int dHead, const RopeTables& t) {
  const int half = dHead / 2;
  for (int h = 0; h < heads; ++h) {
    auto x1 = x.middleCols(static_cast<Eigen::Index>(h) * dHead, half);
    auto x2 = x.middleCols(static_cast<Eigen::Index>(h) * dHead + half, half);
    const Mat a = x1, b = x2;  // [n, half]
    x1 = (a.array() * t.cos.array() - b.array() * t.sin.array()).matrix();
    x2 = (b.array() * t.cos.array() + a.array() * t.sin.array()).matrix();
  }
}

}  // namespace attnlab
