#pragma once
// Rotary position embeddings as Hugging Face transformers computes them (rotate_half on split halves):
//   inv_freq_i = θ^(−2i/d_head), i < d_head/2;  angle(p, i) = p·inv_freq_i
//   x' = x·cos + rotate_half(x)·sin, rotate_half([x₁ | x₂]) = [−x₂ | x₁], cos/sin repeated over both halves.
// Scalings (config.json "rope_scaling"):
//   linear   inv_freq / factor (positions stretched)
//   dynamic  NTK: for n > max_position_embeddings, θ ← θ·(factor·n/max − (factor − 1))^(d/(d−2))
//   llama3   wavelengths 2π/inv_freq above original_max/low_freq_factor are divided by factor, those below
//            original_max/high_freq_factor kept, the band between blended linearly in original_max/wavelen.
// Angles are computed in double: at 8k positions float32 angles are off by ~5e-4 rad.
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

enum class RopeScaling { None, Linear, Dynamic, Llama3 };

struct RopeSpec {
  double theta = 10000.0;
  RopeScaling scaling = RopeScaling::None;
  double factor = 1.0;
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;  ///< llama3
  int originalMaxPositions = 0;                      ///< llama3: original_max_position_embeddings
  int maxPositions = 0;                              ///< dynamic: max_position_embeddings
};

/// inv_freq [d_head/2] for a sequence of `tokens` tokens (dynamic scaling depends on it).
std::vector<double> ropeInverseFrequencies(const RopeSpec& spec, int dHead, int tokens);

/// cos and sin of every angle, [n, d_head/2] each.
struct RopeTables {
  Mat cos, sin;
};
RopeTables ropeTables(const RopeSpec& spec, int dHead, int tokens);

/// Rotates every head of x [n, heads·d_head] in place (head h in columns [h·d_head, (h+1)·d_head)).
void applyRope(Eigen::Ref<Mat> x, int heads, int dHead, const RopeTables& t);

}  // namespace attnlab
