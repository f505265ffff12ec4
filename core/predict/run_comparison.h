#pragma once
// How a changed run (heads ablated) differs from the plain one at a position (DESIGN.md, Round two):
// the target's probability in both, and KL(plain ‖ changed) = Σ p·(log p − log q) of softmax(logits / T),
// computed from the log-softmax directly so tiny probabilities do not underflow to log 0.
#include "core/model/trace.h"
#include "core/model/unembedding.h"

namespace attnlab {

struct RunComparison {
  int target = 0;                             ///< the token compared (default: the plain run's prediction)
  double plainProb = 0.0, changedProb = 0.0;  ///< its probability in each run
  double kl = 0.0;                            ///< KL(plain ‖ changed), nats
  Vec changedLogits;                          ///< [vocab] of the changed run at the position
};

/// Compares the final streams of two runs of the same text at `position` (checked by the caller);
/// target −1: the plain run's most probable token. Throws InputError for a target outside the vocabulary.
RunComparison compareRuns(const Unembedding& u, const Trace& plain, const Trace& changed, int position, int target,
                          double temperature = 1.0);
/// The same from the two runs' final streams [n, d] (the GUI keeps the plain run's, so switching a head off
/// costs no second forward pass).
RunComparison compareRuns(const Unembedding& u, const Mat& plainFinal, const Mat& changedFinal, int position,
                          int target, double temperature = 1.0);
/// The same from the two runs' logits [vocab] at the position, which the caller already has (the plain run's readout
/// and the changed run's lens row: the window's head toggle then streams W_U for neither). Throws InputError for
/// logits of different sizes.
RunComparison compareRuns(const Vec& plainLogits, const Vec& changedLogits, int target, double temperature = 1.0);

}  // namespace attnlab
