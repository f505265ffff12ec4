#pragma once
// What the Training view draws of a tiny encoder–decoder while it trains (issue 33): its cross-attention on one
// fixed probe pair and how close each head is to the task's alignment. The probe is the longest source of distinct
// symbols where the alphabet allows ("a b c … j" for 10; it cycles when the alphabet is shorter), e.g. for reversal
//   source  [a b c … j </s>]   target (decoder input) [</s> j i … a]
// so a head that reads the right source token has its weight on the anti-diagonal (reverse) or on the sorted
// order's positions (sort) or on the diagonal (translate, whose probe is "a b … j" → its word-by-word translation).
// Maps are [decoder layer][head], each [n_t, n_s] = [n + 1, n + 1], rows = targets.
#include <vector>

#include <Eigen/Dense>

#include "core/train/tiny_encdec_trainer.h"

namespace attnlab {

struct EncDecProbe {
  std::vector<int> source, target, labels;  ///< [n + 1] each, as one pair of EncDecBatch
  std::vector<int> aligned;                 ///< [n]: the source position target row i should read
};

/// The probe of a task and model (its longest source length).
EncDecProbe encDecProbe(EncDecTask task, const TinyEncDecConfig& c);

/// Mean weight row i (i < aligned.size()) of `map` puts on column aligned[i]: 1 for a perfect alignment,
/// 1/(n + 1) for uniform attention. [n_t, n_s] with n_t > aligned.size().
double alignmentScore(const Eigen::MatrixXf& map, const std::vector<int>& aligned);

struct EncDecSnapshot {
  int step = 0;
  double loss = 0;                                  ///< the last training step's loss (0 at step 0)
  EncDecEvaluation heldOut;                         ///< teacher-forced, on held-out sources
  std::vector<std::vector<Eigen::MatrixXf>> cross;  ///< [decoder layer][head] on the probe  [n + 1, n + 1]
  std::vector<std::vector<double>> alignment;       ///< [decoder layer][head] alignmentScore of each map
};

/// The cross maps and scores of `p` on the task's probe, and its held-out accuracy on `perLength` pairs of each
/// length (drawn from a fixed seed, so successive snapshots are compared on the same pairs).
EncDecSnapshot encDecSnapshot(const EncDecTrainSettings& s, const TinyEncDecParams<float>& p, int perLength = 8);

}  // namespace attnlab
