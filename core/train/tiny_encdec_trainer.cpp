#include "core/train/tiny_encdec_trainer.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <numeric>

#include "core/base/errors.h"
#include "core/base/rng.h"

namespace attnlab {

const char* toString(EncDecTask t) {
  switch (t) {
    case EncDecTask::Reverse:
      return "reverse";
    case EncDecTask::Sort:
      return "sort";
    case EncDecTask::Translate:
      return "translate";
  }
  return "reverse";
}

EncDecTask parseEncDecTask(const std::string& s) {
  if (s == "reverse") return EncDecTask::Reverse;
  if (s == "sort") return EncDecTask::Sort;
  if (s == "translate") return EncDecTask::Translate;
  throw InputError("unknown encoder–decoder task '" + s + "' (reverse, sort, translate)");
}

bool isHeldOutSource(const int* symbols, int n) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the ids
  for (int i = 0; i < n; ++i) h = (h ^ static_cast<uint64_t>(symbols[i])) * 0x100000001b3ull;
  return splitmix64(h) % 8 == 0;  // mixed once more: FNV's low bits follow the last id too closely
}

int translationOf(int sourceId, int symbols) {
  const int k = symbols / 2, i = sourceId - kEncDecFirstSymbol;
  int stride = 3;
  while (std::gcd(stride, k) != 1) ++stride;
  return kEncDecFirstSymbol + k + (stride * i + 3) % k;
}

void encDecAnswer(EncDecTask task, const std::vector<int>& symbols, std::vector<int>& answer, std::vector<int>& aligned,
                  int symbolCount) {
  const int n = static_cast<int>(symbols.size());
  aligned.resize(static_cast<std::size_t>(n));
  if (task == EncDecTask::Translate) {
    answer.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      aligned[static_cast<std::size_t>(i)] = i;
      answer[static_cast<std::size_t>(i)] = translationOf(symbols[static_cast<std::size_t>(i)], symbolCount);
    }
    return;
  }
  if (task == EncDecTask::Reverse) {
    for (int i = 0; i < n; ++i) aligned[static_cast<std::size_t>(i)] = n - 1 - i;
  } else {
    std::iota(aligned.begin(), aligned.end(), 0);
    std::stable_sort(aligned.begin(), aligned.end(), [&](int a, int b) {
      return symbols[static_cast<std::size_t>(a)] < symbols[static_cast<std::size_t>(b)];
    });
  }
  answer.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    answer[static_cast<std::size_t>(i)] = symbols[static_cast<std::size_t>(aligned[static_cast<std::size_t>(i)])];
}

EncDecBatch sampleEncDecBatch(EncDecTask task, const TinyEncDecConfig& c, int batch, int length, uint64_t seed,
                              bool heldOut) {
  EncDecBatch out;
  out.batch = batch, out.length = length;
  Rng rng(seed);
  std::vector<int> s(static_cast<std::size_t>(length)), answer, aligned;
  // translate: source words from the first half of the alphabet (the second half is the target language's).
  const uint64_t alphabet = static_cast<uint64_t>(task == EncDecTask::Translate ? c.symbols / 2 : c.symbols);
  for (int b = 0; b < batch; ++b) {
    // Rejection: one draw in eight is held out, so a few tries suffice (bounded for safety: the alphabet
    // of a 2-symbol, 2-long task has only 4 strings, which may all fall on one side).
    for (int tries = 0; tries < 1000; ++tries) {
      for (int& x : s) x = kEncDecFirstSymbol + static_cast<int>(rng.next() % alphabet);
      if (isHeldOutSource(s.data(), length) == heldOut) break;
    }
    encDecAnswer(task, s, answer, aligned, c.symbols);
    out.source.insert(out.source.end(), s.begin(), s.end());
    out.source.push_back(kEncDecEos);
    out.target.push_back(kEncDecEos);
    out.target.insert(out.target.end(), answer.begin(), answer.end());
    out.labels.insert(out.labels.end(), answer.begin(), answer.end());
    out.labels.push_back(kEncDecEos);
    out.aligned.insert(out.aligned.end(), aligned.begin(), aligned.end());
  }
  return out;
}

void validate(const EncDecTrainSettings& s) {
  validate(s.model);
  validate(s.adam);
  if (s.batch < 1 || s.batch > 1024) throw InputError("batch size must be between 1 and 1024");
  if (s.threads < 1 || s.threads > 64) throw InputError("threads must be between 1 and 64");
  if (s.minLength < 1 || s.minLength > s.model.maxLength)
    throw InputError("the shortest source must be between 1 and the longest (" + std::to_string(s.model.maxLength) +
                     "), got " + std::to_string(s.minLength));
  if (s.task == EncDecTask::Translate && (s.model.symbols < 4 || s.model.symbols % 2 != 0))
    throw InputError(
        "translate needs an even number of symbols, at least 4 (half source words, half target words), "
        "got " +
        std::to_string(s.model.symbols));
  if (s.decaySteps < 0) throw InputError("decay steps must be 0 (constant rate) or positive");
}

EncDecEvaluation evaluateTinyEncDec(EncDecTask task, const TinyEncDecConfig& c, const TinyEncDecParams<float>& p,
                                    int minLength, int perLength, uint64_t seed) {
  EncDecEvaluation e;
  long long right = 0, total = 0, rows = 0;
  double mass = 0;
  TinyEncDecForward<float> f;
  for (int n = minLength; n <= c.maxLength; ++n) {
    const EncDecBatch b =
        sampleEncDecBatch(task, c, perLength, n, mixSeed(seed, 0xE7A1, static_cast<uint64_t>(n)), true);
    tinyEncDecForward(c, p, b.source.data(), b.target.data(), b.batch, b.tokens(), b.tokens(), f);
    for (Eigen::Index r = 0; r < f.logits.rows(); ++r) {
      Eigen::Index best = 0;
      f.logits.row(r).maxCoeff(&best);
      right += best == b.labels[static_cast<std::size_t>(r)], ++total;
    }
    const auto& cross = f.decoder.back().cross.attention;  // [b·H + h]: [n + 1, n + 1]
    for (int s = 0; s < b.batch; ++s)
      for (int i = 0; i < n; ++i) {
        double m = 0;
        for (int h = 0; h < c.heads; ++h)
          m += cross[static_cast<std::size_t>(s * c.heads + h)](i, b.aligned[static_cast<std::size_t>(s * n + i)]);
        mass += m / c.heads, ++rows;
      }
    e.pairs += b.batch;
  }
  e.accuracy = total ? static_cast<double>(right) / static_cast<double>(total) : 0.0;
  e.alignedMass = rows ? mass / static_cast<double>(rows) : 0.0;
  return e;
}

EncDecTrainer::EncDecTrainer(const EncDecTrainSettings& s)
    : settings_((validate(s), s)),
      params_(initTinyEncDecParams(s.model)),
      m_(params_.zerosLike()),
      v_(params_.zerosLike()) {
  const int threads = std::min(settings_.threads, settings_.batch);
  grads_.assign(static_cast<std::size_t>(threads), params_.zerosLike());
  caches_.resize(static_cast<std::size_t>(threads));
}

namespace {
/// Pairs per forward/backward pass inside a thread's share of the batch (as trainer.cpp's micro-batches).
constexpr int kMicroBatch = 8;
}  // namespace

double EncDecTrainer::step() {
  const TinyEncDecConfig& c = settings_.model;
  const uint64_t seed = mixSeed(c.seed, 0xE4CBA7C, static_cast<uint64_t>(step_));
  const int span = c.maxLength - settings_.minLength + 1;
  uint64_t draw = seed;
  const int length = settings_.minLength + static_cast<int>(splitmix64(draw) % static_cast<uint64_t>(span));
  const EncDecBatch batch = sampleEncDecBatch(settings_.task, c, settings_.batch, length, seed, false);
  const int threads = static_cast<int>(grads_.size()), T = batch.tokens();
  const double rows = static_cast<double>(batch.batch) * T;
  std::vector<double> losses(static_cast<std::size_t>(threads), 0.0);
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(threads));  // none may leave the region
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) try {
      const int b0 = settings_.batch * t / threads, b1 = settings_.batch * (t + 1) / threads;
      TinyEncDecParams<float>& g = grads_[static_cast<std::size_t>(t)];
      g.forEach([](const std::string&, Eigen::MatrixXf& m, TinyEncDecTensor) { m.setZero(); });
      TinyEncDecForward<float>& f = caches_[static_cast<std::size_t>(t)];
      Eigen::MatrixXf dLogits;
      for (int m0 = b0; m0 < b1; m0 += kMicroBatch) {
        const int m1 = std::min(b1, m0 + kMicroBatch);
        const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(m0) * T;
        tinyEncDecForward(c, params_, batch.source.data() + off, batch.target.data() + off, m1 - m0, T, T, f);
        losses[static_cast<std::size_t>(t)] += tinyEncDecCrossEntropy(f, batch.labels.data() + off, rows, dLogits);
        tinyEncDecBackward(c, params_, f, batch.source.data() + off, batch.target.data() + off, dLogits, g);
      }
    } catch (...) {
      failures[static_cast<std::size_t>(t)] = std::current_exception();
    }
  for (const std::exception_ptr& e : failures)
    if (e) std::rethrow_exception(e);
  double loss = 0;
  for (double l : losses) loss += l;
  std::vector<Eigen::MatrixXf*> sum, ps, ms, vs;
  grads_[0].forEach([&](const std::string&, Eigen::MatrixXf& m, TinyEncDecTensor) { sum.push_back(&m); });
  for (std::size_t t = 1; t < grads_.size(); ++t) {
    std::size_t i = 0;
    grads_[t].forEach([&](const std::string&, const Eigen::MatrixXf& m, TinyEncDecTensor) { *sum[i++] += m; });
  }
  double sq = 0;
  for (const Eigen::MatrixXf* m : sum) sq += static_cast<double>(m->squaredNorm());
  if (!std::isfinite(loss) || !std::isfinite(sq))
    throw InputError("training diverged at step " + std::to_string(step_ + 1) +
                     " (the loss or gradient is not a number): lower the learning rate");
  params_.forEach([&](const std::string&, Eigen::MatrixXf& m, TinyEncDecTensor) { ps.push_back(&m); });
  m_.forEach([&](const std::string&, Eigen::MatrixXf& m, TinyEncDecTensor) { ms.push_back(&m); });
  v_.forEach([&](const std::string&, Eigen::MatrixXf& m, TinyEncDecTensor) { vs.push_back(&m); });
  ++step_;
  AdamSettings adam = settings_.adam;
  if (settings_.decaySteps > 0)
    adam.lr *= std::max(0.0, 1.0 - static_cast<double>(step_ - 1) / static_cast<double>(settings_.decaySteps));
  adamUpdate(adam, step_, std::sqrt(sq), ps, sum, ms, vs);
  return loss;
}

}  // namespace attnlab
