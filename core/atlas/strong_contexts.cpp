#include "core/atlas/strong_contexts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/text/token_display.h"

namespace attnlab {

namespace {

constexpr double kNone = -std::numeric_limits<double>::infinity();
constexpr int kSnippetBefore = 20, kSnippetAfter = 3;  // causal: keys lie before the query
constexpr int kSnippetSide = 12;                       // bidirectional: both sides

bool joinsWithoutSpaces(const std::string& pieceStyle) {
  return pieceStyle == "byte-level" || pieceStyle == "metaspace";
}

}  // namespace

bool ContextHeap::better(const Entry& a, const Entry& b) {
  return a.context.score != b.context.score ? a.context.score > b.context.score : a.order < b.order;
}

bool ContextHeap::admits(double score) const {
  if (capacity_ <= 0) return false;
  return static_cast<int>(heap_.size()) < capacity_ || score > heap_.front().context.score;
}

void ContextHeap::push(StrongContext context) {
  if (!admits(context.score)) return;
  if (static_cast<int>(heap_.size()) == capacity_) {
    std::pop_heap(heap_.begin(), heap_.end(), better);
    heap_.pop_back();
  }
  heap_.push_back({std::move(context), pushed_++});
  std::push_heap(heap_.begin(), heap_.end(), better);
}

std::vector<StrongContext> ContextHeap::sorted() const {
  std::vector<Entry> entries = heap_;
  std::sort(entries.begin(), entries.end(), better);
  std::vector<StrongContext> out;
  for (Entry& e : entries) out.push_back(std::move(e.context));
  return out;
}

std::string tokenDisplay(const std::string& token, const std::string& pieceStyle) {
  if (pieceStyle == "byte-level") return tokenDisplayText(token, TokenDisplayStyle::ByteLevel);
  if (pieceStyle == "metaspace") return tokenDisplayText(token, TokenDisplayStyle::Metaspace);
  return token;
}

StrongContextCollector::StrongContextCollector(int layers, int heads, int top, std::vector<Mat> outputGram,
                                               std::string pieceStyle)
    : layers_(layers),
      heads_(heads),
      top_(top),
      gram_(std::move(outputGram)),
      pieceStyle_(std::move(pieceStyle)),
      norm_(static_cast<std::size_t>(layers * heads), ContextHeap(top)),
      edge_(static_cast<std::size_t>(layers * heads), ContextHeap(top)) {}

VecD StrongContextCollector::outputNormScores(const Trace& trace, const ScanWindow& window, int layer, int head) const {
  const auto o = trace.layers[layer].headOutput(head);  // [n, d_head]
  const int n = trace.tokenCount(), end = n - window.suffix;
  VecD s = VecD::Constant(n, kNone);
  Vec sq;
  if (gram_.empty())
    sq = o.rowwise().squaredNorm();
  else  // ‖o_i W_O^h‖² = o_i G_h o_iᵀ
    sq = (o * gram_[static_cast<std::size_t>(layer * heads_ + head)]).cwiseProduct(o).rowwise().sum();
  for (int i = window.prefix; i < end; ++i) s(i) = std::sqrt(std::max(0.0, static_cast<double>(sq(i))));
  return s;
}

VecD StrongContextCollector::edgeScores(const Trace& trace, const ScanWindow& window, int layer, int head,
                                        std::vector<int>& keys) {
  const Mat& a = trace.layers[layer].heads[head].attention;  // [n, n], rows = queries
  const int n = trace.tokenCount(), end = n - window.suffix, first = std::max(1, window.prefix);
  VecD s = VecD::Constant(n, kNone);
  keys.assign(static_cast<std::size_t>(n), -1);
  for (int i = first; i < end; ++i) {
    const int last = trace.causal ? i : end - 1;  // keys a causal query can see
    Eigen::Index j = 0;
    const float best = a.row(i).segment(first, last - first + 1).maxCoeff(&j);
    s(i) = best;
    keys[static_cast<std::size_t>(i)] = first + static_cast<int>(j);
  }
  return s;
}

StrongContext StrongContextCollector::snippet(const Trace& trace, const ScanWindow& window, int layer, int head,
                                              int query, int key) const {
  const int n = trace.tokenCount();
  const int before = trace.causal ? kSnippetBefore : kSnippetSide, after = trace.causal ? kSnippetAfter : kSnippetSide;
  int begin = std::max(0, query - before), end = std::min(n, query + after + 1);
  if (key >= 0) {  // an edge's snippet reaches its key, with two tokens of context before it
    begin = std::min(begin, std::max(0, key - 2));
    end = std::max(end, std::min(n, key + 3));
  }
  const Mat& a = trace.layers[layer].heads[head].attention;
  StrongContext c;
  const bool glue = joinsWithoutSpaces(pieceStyle_);
  for (int j = begin; j < end; ++j) {
    c.tokens.push_back(tokenDisplay(trace.tokens[static_cast<std::size_t>(j)], pieceStyle_));
    if (!glue && j > begin) c.text += ' ';
    c.text += c.tokens.back();
    c.attention.push_back(a(query, j));
  }
  c.position = query - begin;
  c.key = key >= 0 ? key - begin : -1;
  c.source = window.source;
  c.tokenIndex = window.firstToken + (query - window.prefix);
  return c;
}

void StrongContextCollector::offer(ContextHeap& heap, const VecD& scores, const std::vector<int>* keys,
                                   const Trace& trace, const ScanWindow& window, int layer, int head,
                                   const char* kind) const {
  // This window's best `top` queries, best first (earlier first among equals), then those the heap admits.
  std::vector<int> order(static_cast<std::size_t>(scores.size()));
  std::iota(order.begin(), order.end(), 0);
  const auto k = std::min<std::size_t>(order.size(), static_cast<std::size_t>(std::max(top_, 0)));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](int x, int y) { return scores(x) != scores(y) ? scores(x) > scores(y) : x < y; });
  for (std::size_t r = 0; r < k; ++r) {
    const int i = order[r];
    if (scores(i) == kNone || !heap.admits(scores(i))) break;
    StrongContext c = snippet(trace, window, layer, head, i, keys ? (*keys)[static_cast<std::size_t>(i)] : -1);
    c.kind = kind;
    c.score = scores(i);
    heap.push(std::move(c));
  }
}

void StrongContextCollector::addWindow(const Trace& trace, const ScanWindow& window) {
  // Heads on the OpenMP threads: each writes only its own two heaps (nothing here throws but bad_alloc).
  const int count = layers_ * heads_;
#pragma omp parallel for schedule(dynamic)
  for (int idx = 0; idx < count; ++idx) {
    const int l = idx / heads_, h = idx % heads_;
    std::vector<int> keys;
    offer(norm_[static_cast<std::size_t>(idx)], outputNormScores(trace, window, l, h), nullptr, trace, window, l, h,
          "output_norm");
    const VecD edge = edgeScores(trace, window, l, h, keys);
    offer(edge_[static_cast<std::size_t>(idx)], edge, &keys, trace, window, l, h, "attention_edge");
  }
}

void StrongContextCollector::writeTo(HeadAtlas& atlas) const {
  for (int l = 0; l < layers_; ++l)
    for (int h = 0; h < heads_; ++h) {
      const auto idx = static_cast<std::size_t>(l * heads_ + h);
      std::vector<StrongContext> all = norm_[idx].sorted();
      for (StrongContext& c : edge_[idx].sorted()) all.push_back(std::move(c));
      atlas.topExamples[headKey(l, h)] = std::move(all);
    }
}

}  // namespace attnlab
