#include "core/predict/prediction.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/base/errors.h"

namespace attnlab {
namespace {

std::vector<int> topIndices(const VecD& p, int k) {
  std::vector<int> idx(static_cast<size_t>(p.size()));
  std::iota(idx.begin(), idx.end(), 0);
  k = std::clamp(k, 0, static_cast<int>(idx.size()));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&p](int a, int b) { return p(a) > p(b); });
  idx.resize(static_cast<size_t>(k));
  return idx;
}

/// The indices of the k largest finite logits, largest first (ties: the lower index first): one pass keeping a
/// sorted list of k, which almost every logit fails to enter at its first comparison.
std::vector<int> topLogitIndices(const Vec& z, int k) {
  k = std::clamp(k, 0, static_cast<int>(z.size()));
  std::vector<int> best;
  best.reserve(static_cast<size_t>(k) + 1);
  if (k == 0) return best;
  if (k == 1) {  // the logit lens's rows: Eigen's argmax (the first of ties) unless the maximum is not finite
    Eigen::Index at = 0;
    if (std::isfinite(z.maxCoeff(&at))) return {static_cast<int>(at)};
  }
  float floor = -std::numeric_limits<float>::infinity();
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const float v = z(i);
    if (!(v > floor) && (static_cast<int>(best.size()) == k || !std::isfinite(v))) continue;
    const auto at = std::upper_bound(best.begin(), best.end(), v, [&z](float a, int b) { return a > z(b); });
    best.insert(at, static_cast<int>(i));
    if (static_cast<int>(best.size()) > k) best.pop_back();
    if (static_cast<int>(best.size()) == k) floor = z(best.back());
  }
  return best;
}

}  // namespace

const Unembedding& requireUnembedding(const Model& model) {
  const Unembedding* u = model.unembedding();
  if (!u)
    throw InputError("the model \"" + model.info().name +
                     "\" has no unembedding (no vocabulary to predict): open a GPT-2 or decoder checkpoint, or a BERT "
                     "checkpoint with its masked-LM head (cls.predictions)");
  return *u;
}

bool predictsMaskedToken(const Model& model) { return model.unembedding() && model.maskTokenId() >= 0; }

int defaultPosition(const Model& model, const Trace& trace) {
  const int mask = predictsMaskedToken(model) ? model.maskTokenId() : -1;
  for (std::size_t i = 0; i < trace.tokenIds.size() && mask >= 0; ++i)
    if (trace.tokenIds[i] == mask) return static_cast<int>(i);
  return trace.tokenCount() - 1;
}

int resolvePosition(int position, int tokens) {
  if (position == -1) return tokens - 1;
  if (position < 0 || position >= tokens)
    throw InputError("position " + std::to_string(position) + " is outside the sentence (" + std::to_string(tokens) +
                     " tokens: positions 0–" + std::to_string(tokens - 1) + ")");
  return position;
}

int resolveToken(const Model& model, const std::string& tokenOrId) {
  const Unembedding& u = requireUnembedding(model);
  const int byPiece = model.vocabularyId(tokenOrId);
  if (byPiece >= 0) return byPiece;
  const bool digits = !tokenOrId.empty() && std::all_of(tokenOrId.begin(), tokenOrId.end(),
                                                        [](unsigned char ch) { return ch >= '0' && ch <= '9'; });
  if (digits && tokenOrId.size() < 10) {
    const long id = std::stol(tokenOrId);
    if (id < u.vocab) return static_cast<int>(id);
    throw InputError("token id " + tokenOrId + " is outside the vocabulary (ids 0–" + std::to_string(u.vocab - 1) +
                     ")");
  }
  // Text the tokenizer makes into exactly one token (" Mary" → "ĠMary"); special tokens (empty spans,
  // like a BOS the tokenizer adds) do not count.
  if (!tokenOrId.empty()) {
    const TokenizedText t = model.tokenize(tokenOrId);
    int found = -1, count = 0;
    for (std::size_t i = 0; i < t.tokens.size() && i < t.ids.size(); ++i)
      if (t.tokens[i].byteEnd > t.tokens[i].byteBegin) {
        found = t.ids[i];
        ++count;
      }
    if (count == 1) return found;
  }
  throw InputError("unknown token \"" + tokenOrId +
                   "\": give a piece as the model's vocabulary spells it (e.g. \"Ġmat\"), a decimal id, or text "
                   "that is one token (\" mat\")");
}

Vec rowLogits(const Unembedding& u, const Vec& x) { return u.logits(x.transpose()).row(0).transpose(); }

VecD softmaxAt(const Vec& logits, double temperature) {
  const VecD z = logits.cast<double>() / temperature;
  const VecD e = (z.array() - z.maxCoeff()).exp();
  return e / e.sum();
}

double logSumExp(const Eigen::Ref<const Vec>& logits, double temperature) {
  if (logits.size() == 0) return -std::numeric_limits<double>::infinity();
  const float top = logits.maxCoeff();
  const Eigen::ArrayXf e = ((logits.array() - top) * static_cast<float>(1.0 / temperature)).exp();
  double sum = 0.0;
  for (Eigen::Index b = 0; b < e.size(); b += 4096)
    sum += e.segment(b, std::min<Eigen::Index>(4096, e.size() - b)).sum();
  return static_cast<double>(top) / temperature + std::log(sum);
}

void requireFiniteLogits(const Vec& logits) {
  if (logits.allFinite()) return;
  Eigen::Index bad = 0;
  while (bad < logits.size() && std::isfinite(logits(bad))) ++bad;
  throw InputError("the logits are not finite (token " + std::to_string(bad) + ": " +
                   (std::isnan(logits(bad)) ? "NaN" : "Inf") +
                   "): the model's weights overflow float32 on this text, so it predicts nothing");
}

std::vector<TokenScore> topTokens(const Model& model, const Vec& logits, int k, double temperature) {
  // The k largest logits are the k most probable tokens at any temperature, so one pass over the logits finds them
  // and only the softmax's normaliser needs the whole vocabulary (vectorised float exp, summed in double). The
  // lens's 31 rows × 49152 of SmolLM2 took 6.6 ms through a double softmax and a partial sort; now ~4 ms.
  std::vector<TokenScore> out;
  if (logits.size() == 0) return out;
  requireFiniteLogits(logits);
  const double lse = logSumExp(logits, temperature);
  for (int id : topLogitIndices(logits, k)) {
    const double p = std::exp(static_cast<double>(logits(id)) / temperature - lse);
    out.push_back({id, model.vocabularyPiece(id), logits(id), p});
  }
  return out;
}

std::vector<TokenScore> samplingKeeps(const Model& model, const Vec& logits, double temperature, int topK,
                                      double topP) {
  requireFiniteLogits(logits);
  const VecD p = softmaxAt(logits, temperature);
  const int k = topK > 0 ? std::min<int>(topK, static_cast<int>(p.size())) : static_cast<int>(p.size());
  std::vector<TokenScore> kept;
  double mass = 0.0;
  for (int id : topIndices(p, k)) {
    if (!kept.empty() && mass >= topP) break;  // the smallest set whose mass reaches top-p
    kept.push_back({id, model.vocabularyPiece(id), logits(id), p(id)});
    mass += p(id);
  }
  for (TokenScore& t : kept) t.prob /= mass;
  return kept;
}

std::vector<TokenScore> predict(const Model& model, const Trace& trace, int position, int k, double temperature) {
  const Unembedding& u = requireUnembedding(model);
  position = resolvePosition(position, trace.tokenCount());
  if (!(temperature > 0.0)) throw InputError("the temperature must be positive");
  return topTokens(model, rowLogits(u, trace.layers.back().residualOut.row(position).transpose()), k, temperature);
}

namespace {

/// The residual rows at one position [layers + 1, d]: row 0 the embeddings, row l + 1 the stream after layer l
/// (the last row is the prediction's).
Mat lensStreams(const Trace& trace, int position) {
  Mat rows(trace.layerCount() + 1, trace.embeddings.cols());
  rows.row(0) = trace.embeddings.row(position);
  for (int l = 0; l < trace.layerCount(); ++l) rows.row(l + 1) = trace.layers[l].residualOut.row(position);
  return rows;
}

/// Those rows decoded [layers + 1, vocab]: one product over W_U for all of them.
Mat lensLogits(const Unembedding& u, const Trace& trace, int position) {
  return u.logits(lensStreams(trace, position));
}

std::vector<LensRow> lensRows(const Model& model, const Mat& logits, int k) {
  std::vector<LensRow> out;
  for (int r = 0; r < logits.rows(); ++r) out.push_back({r - 1, topTokens(model, logits.row(r).transpose(), k)});
  return out;
}

}  // namespace

std::vector<LensRow> logitLens(const Model& model, const Trace& trace, int position, int k) {
  const Unembedding& u = requireUnembedding(model);
  return lensRows(model, lensLogits(u, trace, resolvePosition(position, trace.tokenCount())), k);
}

PositionReadout readPosition(const Model& model, const Trace& trace, int position, int k, double temperature,
                             int lensK) {
  return readPosition(model, trace, position, k, temperature, lensK, PositionReadout{});
}

PositionReadout readPosition(const Model& model, const Trace& trace, int position, int k, double temperature, int lensK,
                             const PositionReadout& previous) {
  const Unembedding& u = requireUnembedding(model);
  if (!(temperature > 0.0)) throw InputError("the temperature must be positive");
  PositionReadout r;
  r.position = resolvePosition(position, trace.tokenCount());
  r.lensK = lensK;
  r.streams = lensStreams(trace, r.position);
  const Eigen::Index rows = r.streams.rows();
  const bool comparable = previous.position == r.position && previous.lensK == lensK &&
                          previous.streams.rows() == rows && previous.streams.cols() == r.streams.cols() &&
                          static_cast<Eigen::Index>(previous.lens.size()) == rows;
  std::vector<int> changed;  // rows to decode
  for (Eigen::Index i = 0; i < rows; ++i)
    if (!comparable || previous.streams.row(i) != r.streams.row(i)) changed.push_back(static_cast<int>(i));
  Mat fresh(changed.size(), r.streams.cols());  // [changed, d]
  for (std::size_t j = 0; j < changed.size(); ++j) fresh.row(static_cast<Eigen::Index>(j)) = r.streams.row(changed[j]);
  // Transposed once to [vocab, changed]: each row's logits contiguous for its top tokens, not strided by the row
  // count.
  const Mat logits = fresh.rows() > 0 ? Mat(u.logits(fresh).transpose()) : Mat();
  r.lens = comparable ? previous.lens : std::vector<LensRow>(static_cast<std::size_t>(rows));
  // Each row's softmax normaliser is vocab exps (SmolLM2: 31 rows, ~3 ms on one core): the rows split over the
  // threads.
  const int count = static_cast<int>(changed.size());
#pragma omp parallel for schedule(static)
  for (int j = 0; j < count; ++j)
    r.lens[static_cast<std::size_t>(changed[j])] = {changed[j] - 1, topTokens(model, logits.col(j), lensK)};
  const bool lastFresh = !changed.empty() && changed.back() == rows - 1;
  r.logits = lastFresh ? Vec(logits.rightCols(1)) : previous.logits;
  r.top = topTokens(model, r.logits, k, temperature);
  return r;
}

LensGrid logitLensGrid(const Model& model, const Trace& trace, const std::vector<int>& positions) {
  const Unembedding& u = requireUnembedding(model);
  LensGrid g;
  g.positions = positions;
  if (g.positions.empty())
    for (int i = 0; i < trace.tokenCount(); ++i) g.positions.push_back(i);
  for (int& p : g.positions) p = resolvePosition(p, trace.tokenCount());
  const int layers = trace.layerCount() + 1, cols = static_cast<int>(g.positions.size());
  Mat rows(layers * cols, trace.embeddings.cols());  // row l·cols + j: layer row l at position j
  for (int l = 0; l < layers; ++l)
    for (int j = 0; j < cols; ++j)
      rows.row(l * cols + j) = (l == 0 ? trace.embeddings : trace.layers[l - 1].residualOut).row(g.positions[j]);
  const Mat logits = u.logits(rows);
  g.topId.resize(layers, cols);
  g.topProb.resize(layers, cols);
  for (int l = 0; l < layers; ++l)
    for (int j = 0; j < cols; ++j) {
      const VecD p = softmaxAt(logits.row(l * cols + j).transpose());
      Eigen::Index best = 0;
      g.topProb(l, j) = p.maxCoeff(&best);
      g.topId(l, j) = static_cast<int>(best);
    }
  return g;
}

}  // namespace attnlab
