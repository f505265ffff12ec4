#pragma once
// Settings of the spectra / rank / feature-map analyses (issue 4), a sub-struct of Params so the
// GUI, session files and the command line share them. JSON: "spectra" in params_json.cpp.
#include <cstdint>

namespace attnlab {

/// The "exp raises rank" demonstration of seeds/000's comments: x ~ N(0, 1)ⁿ, rank(x·xᵀ) = 1 while
/// rank(exp(c·x·xᵀ)) is about 17 for n = 100, c = 1 (15–19 over seeds 0–99; seed 0 gives 15).
struct RankDemoSettings {
  int n = 100;
  double scale = 1.0;  ///< c
  uint64_t seed = 0;
  double sweepMin = 0.01;  ///< rank vs c: log-spaced c from sweepMin to sweepMax
  double sweepMax = 10.0;
  int sweepPoints = 31;
};

/// The feature-map comparison on the selected head's Q and K.
struct FeatureMapSettings {
  int performerFeatures = 0;  ///< m of Performer's positive features; 0 means 4·d_head (the paper's choice)
  uint64_t performerSeed = 0;
  bool orthogonal = true;  ///< orthogonal random features (blocks of orthonormal rows)
};

/// Rank and entropy of softmax vs linear attention as the key size grows (random Q, K).
struct HeadSizeSettings {
  int n = 128;  ///< tokens
  uint64_t seed = 0;
  int maxKeySize = 128;  ///< key sizes 1, 2, 4, … up to this
};

struct SpectraSettings {
  RankDemoSettings demo;
  FeatureMapSettings features;
  HeadSizeSettings headSize;
};

/// Throws InputError naming the first invalid field, e.g. "params: spectra.rank_demo.n must be
/// between 2 and 4096 (got 1)".
void validate(const SpectraSettings& s);

}  // namespace attnlab
