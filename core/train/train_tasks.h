#pragma once
// The toy tasks of the Training view: generators of batches (no data files) and the per-head scores
// that say what a head has become. Token 0 is BOS, 1 is SEP; task symbols start at 2
// (kTinyBos, kTinySep, kTinyFirstSymbol in tiny_config.h, shared with the typed-text mapping).
// Layouts (S the string length, positions from 0):
//   induction  [BOS, s, s, s …] cut to the context; s has S distinct random tokens, S drawn per
//              sequence from [4, (T−1)/2] (a fixed period would let a positional head cheat); the
//              loss is on the predictable positions (from the second copy on). Probe: S = (T−1)/2.
//   copy       [BOS, s, SEP, s]        loss on the second s
//   reverse    [BOS, s, SEP, rev(s)]   loss on rev(s)
//   sort       [BOS, s, SEP, sort(s)]  s drawn with repetition from a small alphabet (≤ 10 symbols, as minGPT's demo)
//   recall     [BOS, k₁ v₁ … k_N v_N, q₁ a₁ … q_M a_M]: keys and values from two halves of the
//              vocabulary, each query qᵢ a stored key and aᵢ its value; the loss is on the answers.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace attnlab {

enum class TrainTask { Induction, Reverse, Copy, Sort, Recall };

const char* toString(TrainTask t);
/// Throws InputError listing the tasks.
TrainTask parseTrainTask(const std::string& s);
std::vector<std::string> trainTaskNames();

/// A batch of `batch` sequences of `tokens` ids, row-major (ids[b·T + t]); targets[b·T + t] is the id
/// the model should predict at position t (the next token), or −1 where nothing is scored. `source`
/// gives, per scored position, the position of the token the answer is read from (−1 elsewhere): the
/// attention a head that solves the task puts its weight on.
struct TaskBatch {
  int batch = 0, tokens = 0;
  std::vector<int> ids, targets, source;
};

class TaskGenerator {
 public:
  /// Throws InputError when the vocabulary or context is too small for the task.
  TaskGenerator(TrainTask task, int vocab, int context);
  TrainTask task() const { return task_; }
  int tokens() const { return tokens_; }  ///< sequence length of every batch
  TaskBatch sample(int batch, uint64_t seed) const;
  /// Fixed probe sequences (the first is drawn in the view); induction probes use the longest period.
  TaskBatch probe(int count = 8) const;

 private:
  void fill(int b, uint64_t seed, bool probe, TaskBatch& out) const;
  TrainTask task_;
  int vocab_, context_, tokens_;
  int length_;  ///< S: string length (the longest period for induction), pairs N for recall
};

/// Per-head scores on a probe batch. attention[b][h] is head h's [T, T] matrix on probe b (one layer).
/// Names: "previous_token" (mean A[i, i−1]) for every task, and
///   induction: "induction" (mean A[i, i − S + 1] over the second copy)
///   copy: "diagonal", reverse: "mirror", sort: "sort_source", recall: "recall_key" and "recall_value":
///   the mean attention from a scored position to its source token (the key itself for recall_key).
std::map<std::string, double> headScores(TrainTask task, const TaskBatch& probe,
                                         const std::vector<const Eigen::MatrixXf*>& attentionPerProbe);

/// The score that says a head has solved the task (e.g. "induction"), for the view's headline.
const char* primaryScore(TrainTask t);

}  // namespace attnlab
