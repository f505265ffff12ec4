#include "core/train/trainer.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/compute/heap_policy.h"

namespace attnlab {

void validate(const AdamSettings& a) {
  if (!std::isfinite(a.lr) || a.lr <= 0 || a.lr > 1)
    throw InputError("learning rate must be a number in (0, 1] (got " + std::to_string(a.lr) + ")");
  if (!std::isfinite(a.beta1) || a.beta1 < 0 || a.beta1 >= 1 || !std::isfinite(a.beta2) || a.beta2 < 0 || a.beta2 >= 1)
    throw InputError("Adam's betas must lie in [0, 1)");
  if (!std::isfinite(a.eps) || a.eps <= 0) throw InputError("Adam's epsilon must be positive");
  if (!std::isfinite(a.weightDecay) || a.weightDecay < 0 || a.weightDecay > 1)
    throw InputError("weight decay must lie in [0, 1]");
  if (!std::isfinite(a.clip) || a.clip < 0) throw InputError("gradient clip must be 0 (off) or positive");
}

void adamUpdate(const AdamSettings& a, int step, double gradNorm, const std::vector<Eigen::MatrixXf*>& params,
                const std::vector<Eigen::MatrixXf*>& grads, const std::vector<Eigen::MatrixXf*>& ms,
                const std::vector<Eigen::MatrixXf*>& vs) {
  const float clipScale = a.clip > 0 && gradNorm > a.clip ? static_cast<float>(a.clip / gradNorm) : 1.0f;
  const double bc1 = 1.0 - std::pow(a.beta1, step), bc2 = 1.0 - std::pow(a.beta2, step);
  const float lrHat = static_cast<float>(a.lr * std::sqrt(bc2) / bc1);
  const float b1 = static_cast<float>(a.beta1), b2 = static_cast<float>(a.beta2);
  const float eps = static_cast<float>(a.eps * std::sqrt(bc2));
  const float decay = static_cast<float>(a.lr * a.weightDecay);
  for (std::size_t i = 0; i < params.size(); ++i) {
    Eigen::MatrixXf& p = *params[i];
    const Eigen::MatrixXf g = *grads[i] * clipScale;
    *ms[i] = b1 * *ms[i] + (1.0f - b1) * g;
    *vs[i] = b2 * *vs[i] + (1.0f - b2) * g.cwiseAbs2();
    if (decay > 0 && p.cols() > 1) p *= 1.0f - decay;  // AdamW: matrices only, not LayerNorm or biases
    p.array() -= lrHat * ms[i]->array() / (vs[i]->array().sqrt() + eps);
  }
}

void validate(const TrainSettings& s) {
  validate(s.model);
  validate(s.adam);
  if (s.batch < 1 || s.batch > 1024) throw InputError("batch size must be between 1 and 1024");
  if (s.threads < 1 || s.threads > 64) throw InputError("threads must be between 1 and 64");
  // What one step keeps alive, in floats: per layer the activations (≈ 12 d-wide rows, 3 more with an
  // MLP's 4d) and every head's T×T attention, plus logits and their gradient; parameters, gradients and
  // Adam's moments are small beside them. Refused above 2 GiB: a message, not an allocation failure.
  const double rows = static_cast<double>(s.batch) * s.model.context, d = s.model.dModel;
  const double perLayer = rows * (12 * d + (s.model.mlp ? 12 * d : 0)) + rows * s.model.heads * s.model.context;
  const double floats = s.model.layers * perLayer + 3 * rows * s.model.vocab + 4 * rows * d;
  if (floats * sizeof(float) > 2.0 * (1ull << 30))
    throw InputError("this model and batch would need about " +
                     std::to_string(static_cast<long long>(floats * 4 / (1 << 20))) +
                     " MB per training step (limit 2048 MB): lower the batch, context, vocabulary or layers");
}

Trainer::Trainer(const TrainSettings& s)
    : settings_((validate(s), s)),
      generator_(s.task, s.model.vocab, s.model.context),
      probe_(generator_.probe()),
      params_(initTinyParams(s.model)),
      m_(params_.zerosLike()),
      v_(params_.zerosLike()) {
  keepLargeBlocksInHeap();
  const int threads = std::min(settings_.threads, settings_.batch);
  grads_.assign(static_cast<std::size_t>(threads), params_.zerosLike());
  caches_.resize(static_cast<std::size_t>(threads));
}

void Trainer::setLearningRate(double lr) {
  AdamSettings a = settings_.adam;
  a.lr = lr;
  TrainSettings s = settings_;
  s.adam = a;
  validate(s);
  settings_.adam.lr = lr;
}

namespace {
/// Sequences per forward/backward pass inside a thread's share of the batch (see step()).
constexpr int kMicroBatch = 8;
}  // namespace

double Trainer::step() {
  const TinyConfig& c = settings_.model;
  const TaskBatch batch = generator_.sample(settings_.batch, mixSeed(c.seed, 0xBA7C, static_cast<uint64_t>(step_)));
  const double targets =
      static_cast<double>(std::count_if(batch.targets.begin(), batch.targets.end(), [](int t) { return t >= 0; }));
  const int threads = static_cast<int>(grads_.size()), T = batch.tokens;
  std::vector<double> losses(static_cast<std::size_t>(threads), 0.0);
  // An exception may not leave an OpenMP region (it would terminate the program): keep the first.
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(threads));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) try {
      const int b0 = settings_.batch * t / threads, b1 = settings_.batch * (t + 1) / threads;
      TinyParams<float>& g = grads_[static_cast<std::size_t>(t)];
      g.forEach([](const std::string&, Eigen::MatrixXf& m) { m.setZero(); });
      TinyForward<float>& f = caches_[static_cast<std::size_t>(t)];
      Eigen::MatrixXf dLogits;
      // Micro-batches of kMicroBatch sequences: a chunk's activations then stay in this core's cache.
      for (int m0 = b0; m0 < b1; m0 += kMicroBatch) {
        const int m1 = std::min(b1, m0 + kMicroBatch);
        const int* ids = batch.ids.data() + static_cast<std::ptrdiff_t>(m0) * T;
        const int* tg = batch.targets.data() + static_cast<std::ptrdiff_t>(m0) * T;
        tinyForward(c, params_, ids, m1 - m0, T, f, tg);
        losses[static_cast<std::size_t>(t)] += tinyCrossEntropy(f, tg, targets, dLogits);
        tinyBackward(c, params_, f, ids, dLogits, g);
      }
    } catch (...) {
      failures[static_cast<std::size_t>(t)] = std::current_exception();
    }
  for (const std::exception_ptr& e : failures)
    if (e) std::rethrow_exception(e);
  double loss = 0;
  for (double l : losses) loss += l;
  if (!std::isfinite(loss))
    throw InputError("training diverged at step " + std::to_string(step_ + 1) +
                     " (the loss is not a number): lower the learning rate");
  // Sum the per-thread gradients into the first buffer.
  std::vector<Eigen::MatrixXf*> sum;
  grads_[0].forEach([&](const std::string&, Eigen::MatrixXf& m) { sum.push_back(&m); });
  for (std::size_t t = 1; t < grads_.size(); ++t) {
    std::size_t i = 0;
    grads_[t].forEach([&](const std::string&, const Eigen::MatrixXf& m) { *sum[i++] += m; });
  }
  double sq = 0;
  for (const Eigen::MatrixXf* m : sum) sq += static_cast<double>(m->squaredNorm());
  if (!std::isfinite(sq))  // checked before any state changes: the weights stay those of the last good step
    throw InputError("training diverged at step " + std::to_string(step_ + 1) +
                     " (the gradient is not a number): lower the learning rate");
  lastGradNorm_ = std::sqrt(sq);
  ++step_;
  std::vector<Eigen::MatrixXf*> ps, ms, vs;
  params_.forEach([&](const std::string&, Eigen::MatrixXf& m) { ps.push_back(&m); });
  m_.forEach([&](const std::string&, Eigen::MatrixXf& m) { ms.push_back(&m); });
  v_.forEach([&](const std::string&, Eigen::MatrixXf& m) { vs.push_back(&m); });
  adamUpdate(settings_.adam, step_, lastGradNorm_, ps, sum, ms, vs);
  lastLoss_ = loss;
  return loss;
}

TrainSnapshot Trainer::snapshot() const {
  const TinyConfig& c = settings_.model;
  TrainSnapshot s;
  s.step = step_, s.loss = lastLoss_, s.gradNorm = lastGradNorm_;
  TinyForward<float> f;
  tinyForward(c, params_, probe_.ids.data(), probe_.batch, probe_.tokens, f);
  long long right = 0, total = 0;
  for (Eigen::Index r = 0; r < f.logits.rows(); ++r) {
    const int t = probe_.targets[static_cast<std::size_t>(r)];
    if (t < 0) continue;
    Eigen::Index best = 0;
    f.logits.row(r).maxCoeff(&best);
    right += best == t, ++total;
  }
  s.accuracy = total ? static_cast<double>(right) / static_cast<double>(total) : 0.0;
  s.scores.resize(static_cast<std::size_t>(c.layers));
  s.attention.resize(static_cast<std::size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l)
    for (int h = 0; h < c.heads; ++h) {
      std::vector<const Eigen::MatrixXf*> perProbe;
      for (int b = 0; b < probe_.batch; ++b)
        perProbe.push_back(&f.layers[static_cast<std::size_t>(l)].attention[static_cast<std::size_t>(b * c.heads + h)]);
      s.scores[static_cast<std::size_t>(l)].push_back(headScores(settings_.task, probe_, perProbe));
      s.attention[static_cast<std::size_t>(l)].push_back(*perProbe[0]);
    }
  s.probeIds.assign(probe_.ids.begin(), probe_.ids.begin() + probe_.tokens);
  return s;
}

}  // namespace attnlab
