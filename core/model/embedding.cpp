#include "core/model/embedding.h"

#include <cmath>
#include <vector>

#include "core/base/rng.h"

namespace attnlab {

Vec wordEmbedding(const std::string& word, int d, uint64_t seed) {
  Rng rng(mixSeed(fnv1a64(word), seed, 0x656D62));  // "emb"
  Vec v(d);
  for (int i = 0; i < d; ++i) v(i) = static_cast<float>(rng.normal());
  return v;
}

Mat positionEncoding(int n, int d, PositionKind kind, uint64_t seed) {
  Mat p = Mat::Zero(n, d);
  if (kind == PositionKind::Sinusoidal) {
    std::vector<double> freq(d);  // 10000^{−2i/d}, once per column instead of once per entry
    for (int i = 0; i < d; ++i) freq[i] = std::pow(10000.0, -2.0 * (i / 2) / d);
    for (int pos = 0; pos < n; ++pos)
      for (int i = 0; i < d; ++i)
        p(pos, i) = static_cast<float>(i % 2 == 0 ? std::sin(pos * freq[i]) : std::cos(pos * freq[i]));
  } else if (kind == PositionKind::LearnedRandom) {
    for (int pos = 0; pos < n; ++pos) {
      Rng rng(mixSeed(seed, static_cast<uint64_t>(pos), 0x706F73));  // "pos"
      for (int i = 0; i < d; ++i) p(pos, i) = static_cast<float>(rng.normal());
    }
  }
  return p;
}

Mat embedTokens(const std::vector<std::string>& words, int d, PositionKind kind, uint64_t seed) {
  const int n = static_cast<int>(words.size());
  Mat x = positionEncoding(n, d, kind, seed);
  for (int i = 0; i < n; ++i) x.row(i) += wordEmbedding(words[i], d, seed).transpose();
  return x;
}

}  // namespace attnlab
