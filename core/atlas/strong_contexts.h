#pragma once
// Every head's strongest contexts over the corpus (issue 17), kept in bounded min-heaps, `top` per head and kind:
//   output_norm     ‖o_i · W_O^h‖ of query i: the head's write into the residual stream. With G_h = W_O^h·W_O^hᵀ
//                   [d_head, d_head] precomputed, a position costs d_head² (not d_head·d); without W_O (Gemma 2/3
//                   sandwich norms) ‖o_i‖ stands in.
//   attention_edge  max over keys j ≥ 1 of A[i, j], queries i ≥ 1: the strongest edge that is not the sink.
// Queries and keys are the window's text tokens (not its special tokens). A snippet is built only for a position
// that enters a heap (an edge's snippet also reaches back to its key), so a window costs n·(d_head² + n) per head plus
// a few snippets.
#include <string>
#include <vector>

#include "core/atlas/corpus_reader.h"
#include "core/atlas/head_atlas.h"
#include "core/model/trace.h"

namespace attnlab {

/// The `capacity` largest contexts pushed so far; among equal scores the earlier one stays.
class ContextHeap {
 public:
  explicit ContextHeap(int capacity) : capacity_(capacity) {}
  /// True when a context scoring `score` would enter.
  bool admits(double score) const;
  void push(StrongContext context);
  /// Best first.
  std::vector<StrongContext> sorted() const;

 private:
  struct Entry {
    StrongContext context;
    long long order;
  };
  static bool better(const Entry& a, const Entry& b);
  int capacity_;
  long long pushed_ = 0;
  std::vector<Entry> heap_;  ///< std::push_heap order: the worst on top
};

/// Display text of a model's token string ("Ġcat" → " cat" for byte-level pieces) and how snippets join them.
std::string tokenDisplay(const std::string& token, const std::string& pieceStyle);

class StrongContextCollector {
 public:
  /// `outputGram`: G_h per head, layer-major, [d_head, d_head] each; empty → ‖o_i‖.
  StrongContextCollector(int layers, int heads, int top, std::vector<Mat> outputGram, std::string pieceStyle);
  void addWindow(const Trace& trace, const ScanWindow& window);
  /// topExamples: "L.H" → output_norm contexts best first, then attention_edge contexts best first.
  void writeTo(HeadAtlas& atlas) const;

  /// The scores a window gives each query of head (layer, head): [n], −∞ where the query is not ranked.
  VecD outputNormScores(const Trace& trace, const ScanWindow& window, int layer, int head) const;
  /// The same for the attention edge; `keys` receives the arg-max key of each query.
  static VecD edgeScores(const Trace& trace, const ScanWindow& window, int layer, int head, std::vector<int>& keys);

 private:
  StrongContext snippet(const Trace& trace, const ScanWindow& window, int layer, int head, int query, int key) const;
  void offer(ContextHeap& heap, const VecD& scores, const std::vector<int>* keys, const Trace& trace,
             const ScanWindow& window, int layer, int head, const char* kind) const;

  int layers_, heads_, top_;
  std::vector<Mat> gram_;
  std::string pieceStyle_;
  std::vector<ContextHeap> norm_, edge_;  ///< layer-major
};

}  // namespace attnlab
