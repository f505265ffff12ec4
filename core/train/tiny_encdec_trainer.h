#pragma once
// Source → target toy tasks for the tiny encoder–decoder (tiny_encdec_net.h) and its trainer (issue 33): teacher
// forcing, cross-entropy on every target token, Adam (trainer.h's adamUpdate). Layout of one pair, S the string of
// n symbols drawn with repetition:
//   source  [s₁ … s_n, </s>]           the encoder's input (n + 1 tokens; BART's tokenizer appends </s> the same way)
//   target  [</s>, a₁ … a_n]           the decoder's input, starting with decoder_start_token_id (</s>, as BART)
//   labels  [a₁ … a_n, </s>]           what each target position should predict
// reverse: a = S reversed (a_i = s_{n−1−i}: its cross-attention should be the anti-diagonal);
// sort:    a = S sorted by id (a stable argsort gives the source position of each a_i);
// translate: a word-by-word translation between two made-up vocabularies: the source draws from the alphabet's first
//          half ("a"–"j" of 20 symbols), a_i = dict(s_i) from the second half ("k"–"t"), dict a fixed permutation
//          (translationOf); a_i is read from source position i (the diagonal).
// Every batch has one string length (drawn per step from [minLength, maxLength]), so no padding is needed.
// One source in eight (by a hash of its symbols) is held out: training never draws it, evaluation draws only those.
#include <cstdint>
#include <string>
#include <vector>

#include "core/train/tiny_encdec_net.h"
#include "core/train/trainer.h"

namespace attnlab {

enum class EncDecTask { Reverse, Sort, Translate };
const char* toString(EncDecTask t);
/// "reverse", "sort" or "translate"; throws InputError listing them.
EncDecTask parseEncDecTask(const std::string& s);

struct EncDecBatch {
  int batch = 0, length = 0;                ///< B pairs of n symbols: n + 1 source and target tokens each
  std::vector<int> source, target, labels;  ///< [B·(n + 1)] each, row-major
  std::vector<int> aligned;                 ///< [B·n]: the source position answer token i is read from
  int tokens() const { return length + 1; }
};

/// Whether a source string (its n symbols, without </s>) is one of the held-out eighth.
bool isHeldOutSource(const int* symbols, int n);

/// The translate task's dictionary: source word id kEncDecFirstSymbol + i (i < symbols/2) → target word id
/// kEncDecFirstSymbol + symbols/2 + (stride·i + 3) mod symbols/2, stride the smallest ≥ 3 coprime to symbols/2 (a
/// permutation, so every target word has one source word).
int translationOf(int sourceId, int symbols);

/// The answer ids a₁ … a_n of `symbols` and, for each, the source position it comes from. `symbolCount` (the
/// config's symbols) is needed by translate only.
void encDecAnswer(EncDecTask task, const std::vector<int>& symbols, std::vector<int>& answer, std::vector<int>& aligned,
                  int symbolCount = 0);

/// `batch` pairs of strings of `length` symbols from the config's alphabet, drawn from `seed`; held-out sources
/// only when `heldOut`, never otherwise.
EncDecBatch sampleEncDecBatch(EncDecTask task, const TinyEncDecConfig& c, int batch, int length, uint64_t seed,
                              bool heldOut);

struct EncDecTrainSettings {
  EncDecTask task = EncDecTask::Reverse;
  TinyEncDecConfig model;  ///< its seed seeds both the weights and the batches
  AdamSettings adam;
  int minLength = 3;  ///< shortest string; the longest is model.maxLength
  int batch = 32;
  int threads = 1;
  /// > 0: the learning rate falls linearly from adam.lr to 0 at this step (the last steps settle the weights:
  /// whole-sequence greedy accuracy needs every token right); 0: constant.
  int decaySteps = 0;
};

/// Throws InputError naming the first bad value (the config's, Adam's as validate(AdamSettings), batch, threads,
/// lengths, decay steps).
void validate(const EncDecTrainSettings& s);

/// What a model does on held-out sources, teacher-forced.
struct EncDecEvaluation {
  double accuracy = 0;  ///< next-token accuracy over every label (the final </s> included)
  /// Mean cross-attention weight, averaged over the last decoder layer's heads, that target position i (i < n)
  /// puts on the source position its answer is read from (reverse: n − 1 − i, the anti-diagonal).
  double alignedMass = 0;
  int pairs = 0;
};

/// `perLength` held-out pairs of every length in [minLength, maxLength], drawn from `seed`.
EncDecEvaluation evaluateTinyEncDec(EncDecTask task, const TinyEncDecConfig& c, const TinyEncDecParams<float>& p,
                                    int minLength, int perLength, uint64_t seed);

class EncDecTrainer {
 public:
  explicit EncDecTrainer(const EncDecTrainSettings& s);
  /// One optimiser step on a fresh batch; returns its loss. Throws InputError when the loss or the gradient is not a
  /// number (the weights stay those of the last good step).
  double step();
  int stepCount() const { return step_; }
  const EncDecTrainSettings& settings() const { return settings_; }
  const TinyEncDecParams<float>& params() const { return params_; }

 private:
  EncDecTrainSettings settings_;
  TinyEncDecParams<float> params_, m_, v_;
  std::vector<TinyEncDecParams<float>> grads_;  ///< one per thread
  std::vector<TinyEncDecForward<float>> caches_;
  int step_ = 0;
};

}  // namespace attnlab
