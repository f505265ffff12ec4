#pragma once
// Trains the tiny transformer (tiny_net.h) on a toy task (train_tasks.h) with Adam/AdamW and global
// gradient-norm clipping. One step = one batch: the batch is cut into one chunk per thread, each chunk
// runs forward + backward (in micro-batches of 8 sequences, which keep the activations in cache) into its
// own gradient buffer, and the buffers are summed (the loss is the mean over the whole batch, so the
// result does not depend on the thread count beyond rounding). Deterministic for a seed and a thread count.
#include <map>
#include <string>
#include <vector>

#include "core/train/tiny_net.h"
#include "core/train/train_tasks.h"

namespace attnlab {

struct AdamSettings {
  double lr = 3e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weightDecay = 0.0;  ///< AdamW's decoupled decay on weight matrices; 0 = plain Adam
  double clip = 1.0;         ///< global gradient-norm limit; 0 = no clipping
};

struct TrainSettings {
  TrainTask task = TrainTask::Induction;
  TinyConfig model;  ///< its seed seeds both the weights and the batches
  AdamSettings adam;
  int batch = 32;
  int threads = 2;
};

/// Throws InputError naming the first bad value (NaN or non-positive learning rate, betas, ε, decay, clip).
void validate(const AdamSettings& a);
/// One Adam/AdamW step on every tensor: grads[i] (the batch's summed gradient, scaled down to a.clip when the
/// global norm gradNorm exceeds it) updates the moments ms[i], vs[i] and params[i]; `step` counts from 1.
void adamUpdate(const AdamSettings& a, int step, double gradNorm, const std::vector<Eigen::MatrixXf*>& params,
                const std::vector<Eigen::MatrixXf*>& grads, const std::vector<Eigen::MatrixXf*>& ms,
                const std::vector<Eigen::MatrixXf*>& vs);

/// Throws InputError naming the first bad value (NaN or non-positive learning rate, batch 0, …).
void validate(const TrainSettings& s);

/// What the view and the command line show every few steps.
struct TrainSnapshot {
  int step = 0;
  double loss = 0;      ///< training loss of the last step
  double accuracy = 0;  ///< next-token accuracy on the probe batch's scored positions
  double gradNorm = 0;  ///< before clipping
  std::vector<std::vector<std::map<std::string, double>>> scores;  ///< [layer][head] on the probe batch
  std::vector<std::vector<Eigen::MatrixXf>> attention;             ///< [layer][head] on probe 0  [T, T]
  std::vector<int> probeIds;                                       ///< probe 0's tokens
};

class Trainer {
 public:
  explicit Trainer(const TrainSettings& s);

  /// One optimiser step; returns the batch's loss. Throws InputError if the loss became NaN or ∞
  /// (diverged: lower the learning rate).
  double step();
  TrainSnapshot snapshot() const;

  int stepCount() const { return step_; }
  double lastLoss() const { return lastLoss_; }
  double lastGradNorm() const { return lastGradNorm_; }
  void setLearningRate(double lr);
  const TrainSettings& settings() const { return settings_; }
  const TinyParams<float>& params() const { return params_; }
  const TaskGenerator& task() const { return generator_; }

 private:
  TrainSettings settings_;
  TaskGenerator generator_;
  TaskBatch probe_;
  TinyParams<float> params_, m_, v_;
  std::vector<TinyParams<float>> grads_;  ///< one per thread
  std::vector<TinyForward<float>> caches_;
  int step_ = 0;
  double lastLoss_ = 0, lastGradNorm_ = 0;
};

}  // namespace attnlab
