#pragma once
// Fast N(0, σ²) samples for the deep stacks' weights (millions per figure): the ziggurat method of
// Marsaglia & Tsang (2000) in Doornik's formulation (ZIGNOR, 128 blocks), on the project's
// deterministic Rng. About 99% of the samples cost one random word and a multiply; the rest fall back
// to the exact wedge or tail test, so the distribution is exactly normal.
#include "core/base/rng.h"
#include "core/base/tensor.h"

namespace attnlab {

/// One standard normal sample.
double zigguratNormal(Rng& rng);

/// Fills m (in storage order) with N(0, std²) samples.
void fillGaussian(MatD& m, double std, Rng& rng);

}  // namespace attnlab
