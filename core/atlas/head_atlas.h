#pragma once
// The head atlas (issue 17; DESIGN.md "Round two", head scores): what the views and `attnlab heads` show of every
// head of a model. Plain data, filled by the probe scoring (probe_scores.h), the corpus scan (corpus_scan.h) and the
// similarity analysis (head_similarity.h); heads are indexed layer-major (index = layer · heads + head) wherever
// a flat list is used.
#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/model/trace.h"

namespace attnlab {

/// One number per head: [layer][head]. NaN where a score is not defined for the model (the copying score of a
/// model without a vocabulary).
using HeadGrid = std::vector<std::vector<double>>;

/// The probe: [BOS] r₁…r_T r₁…r_T, random tokens repeated once (BOS only where the model has one).
struct AtlasProbe {
  std::vector<int> ids;             ///< token ids, [offset + 2T] (or the special tokens the model adds around them)
  std::vector<std::string> tokens;  ///< their display strings
  int repeat = 0;                   ///< T
  int offset = 0;                   ///< position of r₁ of the first copy (1 after a BOS, else 0)
  unsigned long long seed = 0;      ///< the seed the random tokens came from
  int suffix = 0;                   ///< special tokens after the second copy (BERT's [SEP]), not scored as rows
  std::vector<std::string> notes;   ///< how the probe was made where it differs from the plain recipe

  /// Rows the probe scores average over: every position but the trailing special tokens.
  int scoredRows() const { return offset + 2 * repeat; }
};

/// One of a head's strongest contexts in the corpus: a snippet of text around a query position, with the head's
/// attention row of that query over the snippet, so a view can draw it without running the model again.
struct StrongContext {
  std::string kind;                 ///< "output_norm" (‖o_i·W_O^h‖) or "attention_edge" (largest non-BOS A[i, j])
  double score = 0.0;               ///< the value the contexts are ranked by (larger first)
  std::string text;                 ///< the snippet's text (its tokens' display strings joined)
  std::vector<std::string> tokens;  ///< the snippet's tokens
  int position = 0;                 ///< the query's index in `tokens`
  int key = -1;                     ///< attention_edge: the key's index in `tokens` (−1 for output_norm)
  std::vector<float> attention;     ///< the head's attention from the query to each token of the snippet [tokens]
  std::string source;               ///< the corpus file the snippet came from
  long long tokenIndex = 0;         ///< the query's position in that file's token stream
};

struct HeadAtlas {
  int layers = 0, heads = 0;
  AtlasProbe probe;
  /// Score name → grid. Probe scores: "previous_token", "induction", "duplicate_token", "bos", "entropy",
  /// "mean_distance"; weights: "copying"; over the corpus (present after a scan): "dla_magnitude",
  /// "ablation_effect", and the probe's previous_token, bos, entropy and mean_distance refined as
  /// "corpus_previous_token", "corpus_bos", "corpus_entropy", "corpus_mean_distance".
  std::map<std::string, HeadGrid> metrics;
  /// Pairwise similarity of the heads' attention patterns [L·H][L·H], 1 = the same rows (1 − JSD / ln 2,
  /// averaged over the query rows compared).
  std::vector<std::vector<double>> similarity;
  std::vector<int> clusterOrder;             ///< heads (layer-major) in the order the clustering puts them
  std::vector<std::array<double, 2>> map2d;  ///< a 2-D map of the heads (classical MDS of 1 − similarity)
  /// "L.H" → the head's strongest contexts over the corpus, best first, both kinds.
  std::map<std::string, std::vector<StrongContext>> topExamples;
  long long corpusTokens = 0;      ///< tokens scanned so far (0: probe only)
  std::vector<std::string> notes;  ///< what the numbers rest on, for the views and the JSON (skipped files, …)
  /// The probe's forward pass, for thumbnails and hover (shared, not copied, between snapshots).
  std::shared_ptr<const Trace> probeTrace;
};

/// "L.H" for a head, the key of topExamples (and of the JSON's "top_examples": a public field, kept).
std::string headKey(int layer, int head);
/// "L0H10" for a head: the row and column labels of exported numbers (CSV), which "0.10" made ambiguous for
/// models of ten or more heads (a spreadsheet reads it as 0.1, the label of head 0.1).
std::string headName(int layer, int head);

}  // namespace attnlab
