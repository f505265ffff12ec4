#include "core/model/generate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/base/errors.h"

namespace attnlab {
namespace {

void checkOptions(const SamplingOptions& o) {
  if (!(o.temperature > 0.0) || !std::isfinite(o.temperature))
    throw InputError("the temperature must be above 0 (got " + std::to_string(o.temperature) + ")");
  if (o.topK < 0) throw InputError("top-k must be 0 (off) or positive (got " + std::to_string(o.topK) + ")");
  if (!(o.topP > 0.0 && o.topP <= 1.0))
    throw InputError("top-p must be in (0, 1] (got " + std::to_string(o.topP) + ")");
}

/// softmax(logits / T) in double [vocab].
VecD probabilities(const Vec& logits, double t) {
  VecD p = logits.cast<double>() / t;
  p = (p.array() - p.maxCoeff()).exp();
  return p / p.sum();
}

}  // namespace

int chooseToken(const Vec& logits, const SamplingOptions& o, Rng& rng, double* prob) {
  checkOptions(o);
  const VecD p = probabilities(logits, o.greedy ? 1.0 : o.temperature);
  int chosen = 0;
  if (o.greedy) {
    logits.maxCoeff(&chosen);
  } else {
    // The candidates, most probable first (ties by id, so the order and the draw are reproducible).
    std::vector<int> ids(static_cast<std::size_t>(p.size()));
    std::iota(ids.begin(), ids.end(), 0);
    std::size_t keep = ids.size();
    if (o.topK > 0) keep = std::min<std::size_t>(keep, static_cast<std::size_t>(o.topK));
    const auto byProb = [&p](int a, int b) { return p[a] > p[b] || (p[a] == p[b] && a < b); };
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(keep), ids.end(), byProb);
    if (o.topP < 1.0) {
      double mass = 0.0;
      std::size_t n = 0;
      while (n < keep && mass < o.topP) mass += p[ids[n++]];
      keep = std::max<std::size_t>(n, 1);
    }
    double total = 0.0;
    for (std::size_t i = 0; i < keep; ++i) total += p[ids[i]];
    double u = rng.uniform() * total;
    chosen = ids[keep - 1];
    for (std::size_t i = 0; i < keep; ++i) {
      u -= p[ids[i]];
      if (u <= 0.0) {
        chosen = ids[i];
        break;
      }
    }
  }
  if (prob) *prob = p[chosen];
  return chosen;
}

std::vector<GeneratedToken> generate(const Model& model, const std::vector<int>& promptIds, int steps,
                                     const SamplingOptions& options, const RunControl& control,
                                     const std::function<void(const GeneratedToken&)>& onToken,
                                     const Intervention& iv) {
  if (steps <= 0) throw InputError("the number of steps must be at least 1 (got " + std::to_string(steps) + ")");
  checkOptions(options);
  const std::string name = model.info().name;
  if (!model.unembedding()) throw InputError(name + " has no unembedding: it cannot predict the next token");
  if (model.maskTokenId() >= 0)
    throw InputError(name + " is a masked language model: it predicts the token at a [MASK], not the next one");
  if (promptIds.empty()) throw InputError("generation needs a prompt of at least one token");
  const int limit = model.info().maxTokens;
  if (limit > 0 && static_cast<long long>(promptIds.size()) + steps > limit)
    throw InputError("the prompt (" + std::to_string(promptIds.size()) + " tokens) and " + std::to_string(steps) +
                     " steps exceed the " + std::to_string(limit) + " positions of " + name);
  // The cached session, or — with heads ablated — the whole sequence again each step, so the ablated model
  // writes the text (the cache holds no interventions).
  std::unique_ptr<DecodeSession> session;
  std::vector<int> sequence = promptIds;
  auto fullLogits = [&] {
    TokenizedText text;
    text.ids = sequence;
    text.tokens.resize(sequence.size());
    const Trace t = model.forward(text, {}, iv);
    return Vec(model.unembedding()->logits(t.layers.back().residualOut.bottomRows(1)).row(0).transpose());
  };
  // Models without a cache (the trained tiny ones, a few positions long) recompute too.
  if (iv.empty()) session = model.startDecoding(promptIds, control.part(0.0, 0.1));
  if (session) session->checkRoom(steps);  // before any token is made: the whole run fits or nothing happens
  Vec logits = session ? session->logits() : fullLogits();
  Rng rng(options.seed);
  std::vector<GeneratedToken> out;
  for (int s = 1; s <= steps; ++s) {
    control.checkpoint(0.1 + 0.9 * (s - 1) / steps);
    GeneratedToken t;
    t.step = s;
    t.id = chooseToken(logits, options, rng, &t.prob);
    t.piece = model.vocabularyPiece(t.id);
    out.push_back(t);
    if (onToken) onToken(out.back());
    if (s == steps) break;
    if (session) {
      logits = session->append(t.id);
    } else {
      sequence.push_back(t.id);
      logits = fullLogits();
    }
  }
  control.checkpoint(1.0);
  return out;
}

}  // namespace attnlab
