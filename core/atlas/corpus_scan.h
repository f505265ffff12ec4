#pragma once
// The head atlas over the user's corpus (issue 17): text files read as a stream in windows of the model's
// context, one forward pass a window, keeping only what the atlas needs — every head's strongest contexts (by
// output norm and by its strongest non-BOS attention edge), its direct-logit-attribution magnitude on the next
// token, the pattern scores refined over real text, the ablation effect on a bounded sample — never the maps.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/atlas/head_atlas.h"
#include "core/base/run_control.h"
#include "core/model/model.h"

namespace attnlab {

/// Where a scan's time went, in seconds (for bench/bench_atlas_corpus).
struct CorpusTimings {
  double projections = 0.0;  ///< reading W_O once (attribution.h's probe passes)
  double reading = 0.0;      ///< reading, checking and tokenizing the files
  double forward = 0.0;      ///< the windows' forward passes
  double contexts = 0.0;     ///< ranking the strongest contexts
  double dla = 0.0;          ///< the DLA products
  double patterns = 0.0;     ///< the pattern scores (corpus_previous_token, …) over the windows
  double publishing = 0.0;   ///< copying the refined results into the atlas after each window
  double ablation = 0.0;     ///< the ablation passes
};

struct CorpusOptions {
  std::vector<std::string> files;  ///< text files, or folders (their files, recursively, in name order)
  int window = 256;                ///< tokens per forward pass (at most the model's context)
  int top = 10;                    ///< strongest contexts kept per head and kind
  int ablationTokens = 64;  ///< tokens of the corpus's first window the ablation effect is measured on (144 passes for
                            ///< GPT-2 small: ~5 s)
  int ablationPositions = 32;                     ///< positions of those the loss is read at (evenly spaced)
  std::size_t chunkBytes = std::size_t(1) << 20;  ///< bytes read and tokenized at a time (cut at whitespace)
  CorpusTimings* timings = nullptr;               ///< filled when given
};

/// Called after each window with the atlas refined so far and the fraction of the corpus read (by bytes).
using CorpusProgress = std::function<void(const HeadAtlas& atlas, double fraction)>;

/// Scans the corpus into `atlas` (built by buildProbeAtlas for the same model): fills topExamples, the corpus
/// metrics, corpusTokens, and a note for every file skipped (empty, binary, not UTF-8: with the file and byte
/// offset). Throws InputError when no file holds any text, Cancelled through `control` (the atlas then holds what
/// was scanned).
void scanCorpus(const Model& model, const CorpusOptions& options, HeadAtlas& atlas, const CorpusProgress& progress = {},
                const RunControl& control = {});

}  // namespace attnlab
