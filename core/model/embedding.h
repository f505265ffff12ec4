#pragma once
// Deterministic embeddings for the built-in model: no vocabulary is needed, the same word always
// gets the same vector for a given seed (its components drawn from N(0, 1) by a generator seeded with
// hash(word) ⊕ seed), so "the" at two positions has identical embeddings — which is what makes
// permutation equivariance visible when position information is off.
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/tensor.h"
#include "core/model/model_config.h"

namespace attnlab {

/// Word vector of one token: [d]. Components ~ N(0, 1).
Vec wordEmbedding(const std::string& word, int d, uint64_t seed);

/// Position information for positions 0..n−1: [n, d]. None → zeros; LearnedRandom → N(0, 1) rows
/// seeded by (seed, position) (a stand-in for a learned table of any length); Sinusoidal →
/// PE(p, 2i) = sin(p / 10000^{2i/d}), PE(p, 2i+1) = cos(p / 10000^{2i/d}).
Mat positionEncoding(int n, int d, PositionKind kind, uint64_t seed);

/// Rows = word embedding + position information  [n, d].
Mat embedTokens(const std::vector<std::string>& words, int d, PositionKind kind, uint64_t seed);

}  // namespace attnlab
