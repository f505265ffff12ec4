#include "core/atlas/corpus_scan.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "core/atlas/ablation_effect.h"
#include "core/atlas/corpus_dla.h"
#include "core/atlas/corpus_reader.h"
#include "core/atlas/head_similarity.h"
#include "core/atlas/probe_scores.h"
#include "core/atlas/strong_contexts.h"
#include "core/base/errors.h"
#include "core/predict/attribution.h"
#include "core/predict/prediction.h"

namespace attnlab {

namespace {

constexpr char kNotePrefix[] = "corpus";

/// Adds the seconds since the last call to a timing field (when timings are asked for).
class Stopwatch {
 public:
  explicit Stopwatch(CorpusTimings* timings) : timings_(timings) {}
  void add(double CorpusTimings::*field) {
    const auto now = std::chrono::steady_clock::now();
    if (timings_) timings_->*field += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  CorpusTimings* timings_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

bool isCorpusNote(const std::string& note) { return note.rfind(kNotePrefix, 0) == 0; }

/// W_O^h·W_O^hᵀ [d_head, d_head] per head, layer-major: ‖o·W_O^h‖² = o·G_h·oᵀ.
std::vector<Mat> outputGrams(const OutputProjections& p, int heads) {
  std::vector<Mat> grams;
  for (const Mat& w : p.weights) {
    const Eigen::Index dh = w.rows() / heads;
    for (int h = 0; h < heads; ++h) grams.push_back(w.middleRows(h * dh, dh) * w.middleRows(h * dh, dh).transpose());
  }
  return grams;
}

/// Why the next-token scores (DLA, ablation) cannot be computed for the model; empty when they can.
std::string nextTokenRefusal(const Model& model) {
  if (!model.unembedding()) return "the model has no unembedding";
  if (predictsMaskedToken(model)) return "the model predicts masked tokens, not the next token";
  return {};
}

/// Query rows of each window the heads' similarity compares: 8 rows of each of 76 windows (20k tokens) is ~0.6 s for
/// GPT-2 small's 144 heads, and over a corpus of many windows the rows add up.
constexpr int kSimilarityRowsPerWindow = 8;

/// Seconds between two clusterings of the heads' similarity during the scan: once a second keeps the window live,
/// while publishing everything after each of the 76 windows of 20k tokens took 0.35 s of the scan.
constexpr double kPublishSeconds = 1.0;

/// Everything one scan keeps between windows: O(layers·heads·top) snippets and sums, never a map.
struct Scan {
  const Model& model;
  const CorpusOptions& options;
  HeadAtlas& atlas;
  std::vector<std::string> baseNotes, notes;
  std::optional<OutputProjections> projections;
  std::unique_ptr<StrongContextCollector> contexts;
  std::unique_ptr<DlaAccumulator> dla;
  PatternScoreAccumulator patterns;  ///< the probe's pattern scores over the corpus's windows
  SimilarityAccumulator similarity;  ///< the heads' similarity over sampled rows of every window
  TokenizedText ablationText;        ///< the corpus's first tokens, kept for the ablation passes

  /// Copies the results so far into the atlas; the similarity's clustering and map only with `withSimilarity`.
  void publish(const CorpusReader& reader, long long tokens, bool withSimilarity = true) {
    contexts->writeTo(atlas);
    if (dla) atlas.metrics["dla_magnitude"] = dla->mean();
    for (auto& [name, grid] : patterns.grids("corpus_")) atlas.metrics[name] = std::move(grid);
    if (withSimilarity && similarity.rowsCompared() > 0) {  // the corpus's similarity replaces the probe's
      const SimilarityMatrix m = similarity.similarity();
      atlas.similarity = m;
      atlas.clusterOrder = clusterOrder(m);
      atlas.map2d = map2d(m);
    }
    atlas.corpusTokens = tokens;
    atlas.notes = baseNotes;
    atlas.notes.insert(atlas.notes.end(), notes.begin(), notes.end());
    atlas.notes.insert(atlas.notes.end(), reader.notes().begin(), reader.notes().end());
  }
};

void prepare(Scan& s, int window, const RunControl& cancelOnly) {
  const ModelInfo info = s.model.info();
  if (s.options.window > window)
    s.notes.push_back("corpus: windows of " + std::to_string(window) + " tokens (the model's context), not " +
                      std::to_string(s.options.window));
  try {
    s.projections = readOutputProjections(s.model, s.model.tokenize("a"), 128, cancelOnly);
  } catch (const InputError& e) {
    s.notes.push_back(std::string("corpus: contexts ranked by ‖o_i‖ (the head's output before W_O): ") + e.what());
  }
  s.contexts = std::make_unique<StrongContextCollector>(
      info.layers, info.heads, s.options.top,
      s.projections ? outputGrams(*s.projections, info.heads) : std::vector<Mat>{}, info.pieceStyle);
  const std::string refusal = nextTokenRefusal(s.model);
  if (!refusal.empty())
    s.notes.push_back("corpus: no dla_magnitude or ablation_effect: " + refusal);
  else if (!s.projections)
    s.notes.push_back("corpus: no dla_magnitude: the heads' outputs are not linear in the logit");
  else
    s.dla = std::make_unique<DlaAccumulator>(*s.model.unembedding(), s.projections->weights, info.layers, info.heads);
}

void measureAblation(Scan& s, double corpusShare, const CorpusProgress& progress, const RunControl& control) {
  if (s.ablationText.tokens.size() < 2) return;
  RunControl part;
  part.cancel = control.cancel;
  part.progress = [&](double f) {
    const double whole = corpusShare + (1.0 - corpusShare) * f;
    if (control.progress) control.progress(whole);
    if (progress) progress(s.atlas, whole);
  };
  const HeadAblationEffects a =
      measureAblationEffect(s.model, s.ablationText, std::max(1, s.options.ablationPositions), part);
  s.atlas.metrics["ablation_effect"] = a.effect;
  s.notes.push_back("corpus: ablation effect on the first " + std::to_string(a.tokens) + " tokens, " +
                    std::to_string(a.positions.size()) + " positions");
}

}  // namespace

void scanCorpus(const Model& model, const CorpusOptions& options, HeadAtlas& atlas, const CorpusProgress& progress,
                const RunControl& control) {
  const ModelInfo info = model.info();
  const int window = info.maxTokens > 0 ? std::min(options.window, info.maxTokens) : options.window;
  const RunControl cancelOnly{control.cancel, {}};
  Scan s{model, options, atlas, {}, {}, {}, {}, {}, {}, {}, {}};
  std::copy_if(atlas.notes.begin(), atlas.notes.end(), std::back_inserter(s.baseNotes),
               [](const std::string& n) { return !isCorpusNote(n); });
  atlas.topExamples.clear();
  for (const char* m : {"dla_magnitude", "ablation_effect"}) atlas.metrics.erase(m);
  CorpusReader reader(options.files, options.chunkBytes);
  TokenWindows windows(model, reader, window);
  if (options.timings) *options.timings = {};
  Stopwatch clock(options.timings);
  prepare(s, window, cancelOnly);
  clock.add(&CorpusTimings::projections);
  // Progress: the corpus's bytes, then the ablation passes, weighted by tokens run (≈ 4 bytes a token).
  const double corpusTokens = std::max(1.0, static_cast<double>(reader.totalBytes()) / 4.0);
  const bool ablate = nextTokenRefusal(model).empty() && options.ablationTokens >= 2;
  const double ablationTokens = ablate ? static_cast<double>(info.layers * info.heads) * options.ablationTokens : 0.0;
  const double corpusShare = corpusTokens / (corpusTokens + ablationTokens);
  Intervention keepMaps;  // the scan reads every head's map of each window (patterns, contexts, similarity)
  keepMaps.maps = MapKeeping::Always;
  ScanWindow w;
  // The heads' similarity is clustered and mapped again at most every kPublishSeconds (and at the end), the rest of
  // the atlas after each window; a cancelled scan publishes all it read.
  auto lastPublished = std::chrono::steady_clock::now();
  long long scanned = 0;  // tokens of the windows read into the accumulators (the reader may be a window ahead)
  try {
    while (windows.next(w)) {
      clock.add(&CorpusTimings::reading);
      control.checkpoint(corpusShare * reader.fraction());
      const Trace t = model.forward(w.text, cancelOnly, keepMaps);
      clock.add(&CorpusTimings::forward);
      if (s.ablationText.tokens.empty()) {
        const auto n = std::min(w.text.tokens.size(), static_cast<std::size_t>(std::max(options.ablationTokens, 0)));
        s.ablationText.tokens.assign(w.text.tokens.begin(), w.text.tokens.begin() + static_cast<std::ptrdiff_t>(n));
        if (!w.text.ids.empty())
          s.ablationText.ids.assign(w.text.ids.begin(), w.text.ids.begin() + static_cast<std::ptrdiff_t>(n));
      }
      s.contexts->addWindow(t, w);
      clock.add(&CorpusTimings::contexts);
      if (s.dla) s.dla->addWindow(t, w);
      clock.add(&CorpusTimings::dla);
      s.patterns.add(t, t.tokenCount() - w.suffix);  // the rows of the window's text (and its BOS)
      s.similarity.add(t, t.tokenCount() - w.suffix, kSimilarityRowsPerWindow, {});  // not cancelled half-added
      clock.add(&CorpusTimings::patterns);
      const auto now = std::chrono::steady_clock::now();
      const bool withSimilarity = std::chrono::duration<double>(now - lastPublished).count() >= kPublishSeconds;
      scanned = windows.tokens();
      s.publish(reader, scanned, withSimilarity);
      if (withSimilarity) lastPublished = now;
      if (progress) progress(atlas, corpusShare * reader.fraction());
      clock.add(&CorpusTimings::publishing);
    }
  } catch (const Cancelled&) {
    s.publish(reader, scanned);
    throw;
  }
  clock.add(&CorpusTimings::reading);
  if (windows.tokens() == 0) {
    s.publish(reader, 0);
    std::string files;
    for (const std::string& f : options.files) files += (files.empty() ? "" : ", ") + f;
    std::string why;
    for (const std::string& n : reader.notes()) why += "; " + n;
    throw InputError("the corpus holds no text to scan (" + (files.empty() ? std::string("no files given") : files) +
                     ")" + why);
  }
  s.publish(reader, windows.tokens());  // the last windows' similarity, for the progress of the ablation passes
  if (ablate) measureAblation(s, corpusShare, progress, control);
  clock.add(&CorpusTimings::ablation);
  s.publish(reader, windows.tokens());
  control.checkpoint(1.0);
  if (progress) progress(atlas, 1.0);
}

}  // namespace attnlab
