// A forward pass that keeps no maps (MapKeeping::Never, what long inputs get, issue 18) equals the one that keeps
// them (Always) on every model family: the same residual streams and head outputs to float rounding, each head's map
// recomputed on demand equal to the stored one, the same summaries, and `attnlab dump`'s JSON of the recomputed maps
// equal to that of the stored ones. Exercises GPT-2, BERT, grouped-query Llama, Mistral's window and Gemma 2's
// soft-cap at 40 tokens (below the tile size and across tile boundaries for the window). An edited text's pass that
// takes its unchanged first rows from the last run equals the pass of the whole text.
#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "core/model/head_maps.h"
#include "core/model/layer_outputs.h"
#include "core/model/prefix_reuse.h"
#include "core/model/trace_json.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string dataDir(const QString& rel) { return std::string(ATTNLAB_TEST_DATA) + "/" + rel.toStdString(); }

TokenizedText someIds(const Model& m, int n) {
  TokenizedText t;
  const int vocab = m.vocabularySize();
  for (int i = 0; i < n; ++i) {
    t.ids.push_back((17 + 7919 * i) % vocab);
    t.tokens.push_back(Token{m.vocabularyPiece(t.ids.back())});
  }
  return t;
}

}  // namespace

class TestTiledForward : public QObject {
  Q_OBJECT
 private slots:
  void tiledPassEqualsKeptPass_data() {
    QTest::addColumn<QString>("dir");
    QTest::addColumn<int>("tokens");
    QTest::newRow("gpt2") << "reference/models/gpt2_tiny" << 40;
    QTest::newRow("bert") << "reference/models/bert_tiny" << 30;
    for (const char* n : {"llama-gqa", "mistral-window", "gemma2-softcap", "gemma3-pattern"})
      QTest::newRow(n) << QString("reference/decoders/") + n << 40;
  }
  void tiledPassEqualsKeptPass() {
    QFETCH(QString, dir);
    QFETCH(int, tokens);
    const auto model = loadCheckpoint(dataDir(dir));
    const TokenizedText text = someIds(*model, std::min(tokens, model->info().maxTokens));
    Intervention keep, tile;
    keep.maps = MapKeeping::Always;
    tile.maps = MapKeeping::Never;
    const Trace kept = model->forward(text, {}, keep);
    const Trace tiled = model->forward(text, {}, tile);
    QCOMPARE(tiled.layerCount(), kept.layerCount());
    // GPT-2 and the decoders keep no attention or MLP outputs in a long input's trace: their model recomputes them
    // (layer_outputs.h); BERT keeps them.
    const bool recomputes = model->info().kind != "bert";
    QCOMPARE(tiled.outputsFrom != nullptr, recomputes);
    QVERIFY(kept.outputsFrom == nullptr);
    for (int l = 0; l < kept.layerCount(); ++l) {
      ATTNLAB_COMPARE_MATRICES(tiled.layers[l].residualOut, kept.layers[l].residualOut, 1e-4);
      QCOMPARE(recomputesOutputs(tiled, l), recomputes);
      QCOMPARE(tiled.layers[l].attentionOut.size() == 0, recomputes);
      ATTNLAB_COMPARE_MATRICES(attentionOutOf(tiled, l), kept.layers[l].attentionOut, 1e-4);
      ATTNLAB_COMPARE_MATRICES(mlpOutOf(tiled, l), kept.layers[l].mlpOut, 1e-4);
      const Eigen::Index mid = text.ids.size() / 2;  // the rows a view or the attribution reads alone
      ATTNLAB_COMPARE_MATRICES(mlpOutRows(tiled, l, mid, 3), kept.layers[l].mlpOut.middleRows(mid, 3), 1e-4);
      ATTNLAB_COMPARE_MATRICES(tiled.layerInput(l), kept.layerInput(l), 1e-4);  // read through the accessor
      for (int h = 0; h < kept.headCount(); ++h) {
        const HeadTrace& a = kept.layers[l].heads[h];
        const HeadTrace& b = tiled.layers[l].heads[h];
        QVERIFY(a.keepsMaps() && !b.keepsMaps());
        // K and V are held once per kv head: the query heads of a group share them.
        const int first = tiled.kvHeadOf(h) * (kept.headCount() / kept.kvHeadCount());
        QCOMPARE(b.keys.get(), tiled.layers[l].heads[first].keys.get());
        QCOMPARE(b.values.get(), tiled.layers[l].heads[first].values.get());
        ATTNLAB_COMPARE_MATRICES(Mat(tiled.layers[l].headOutput(h)), Mat(kept.layers[l].headOutput(h)), 1e-4);
        ATTNLAB_COMPARE_MATRICES(headAttention(b), a.attention, 1e-5);
        ATTNLAB_COMPARE_MATRICES(headScores(b), a.scores, 1e-5);
        const HeadSummary s = summarizeMap(a.attention);
        QVERIFY(std::abs(b.summary.entropy - s.entropy) < 1e-4);
        ATTNLAB_COMPARE_MATRICES(b.summary.thumbMax, s.thumbMax, 1e-5);
      }
    }
    TraceJsonOptions o;
    const nlohmann::json jk = traceToJson(kept, {}, o), jt = traceToJson(tiled, {}, o);
    const auto& mk = jk["layers"][0]["heads"][0]["attention"];
    const auto& mt = jt["layers"][0]["heads"][0]["attention"];
    QCOMPARE(mt.size(), mk.size());
    for (std::size_t i = 0; i < mk.size(); ++i)
      for (std::size_t j = 0; j < mk[i].size(); ++j)
        QVERIFY(std::abs(mt[i][j].get<double>() - mk[i][j].get<double>()) < 1e-5);
  }

  // A residual patch is recorded in the stream the patched layer reads (Trace::layerInput): a long input's pass with
  // one keeps its attention and MLP outputs, which output − input − attention would otherwise mix the patch into.
  void residualPatchKeepsTheOutputs() {
    const auto model = loadCheckpoint(dataDir("reference/models/gpt2_tiny"));
    const TokenizedText clean = someIds(*model, 40);
    TokenizedText corrupt = clean;
    corrupt.ids[5] = (corrupt.ids[5] + 1) % model->vocabularySize();
    Intervention tile;
    tile.maps = MapKeeping::Never;
    const Trace source = model->forward(clean, {}, tile);
    QVERIFY(source.outputsFrom != nullptr);
    Intervention patch = tile, keep;
    patch.source = &source;
    patch.residualLayer = 1;
    patch.residualPosition = 5;
    keep = patch;
    keep.maps = MapKeeping::Always;
    const Trace tiled = model->forward(corrupt, {}, patch), kept = model->forward(corrupt, {}, keep);
    QVERIFY(tiled.outputsFrom == nullptr);
    QCOMPARE(tiled.layerInput(1).row(5), source.layerInput(1).row(5));  // what layer 1 read at the patched row
    for (int l = 0; l < kept.layerCount(); ++l) {
      ATTNLAB_COMPARE_MATRICES(mlpOutOf(tiled, l), kept.layers[l].mlpOut, 1e-4);
      ATTNLAB_COMPARE_MATRICES(attentionOutOf(tiled, l), kept.layers[l].attentionOut, 1e-4);
    }
  }

  // An edited text (prefix_reuse.h): the rows before the first changed token taken from the last run give the pass of
  // the whole text; so does a text grown at the end; mean ablation, kept maps and dynamic RoPE compute every row.
  void editReusesTheUnchangedPrefix_data() {
    QTest::addColumn<QString>("dir");
    QTest::newRow("gpt2") << "reference/models/gpt2_tiny";
    for (const char* n : {"llama-gqa", "mistral-window", "gemma2-softcap", "gemma3-pattern", "qwen3-norms"})
      QTest::newRow(n) << QString("reference/decoders/") + n;
  }
  void editReusesTheUnchangedPrefix() {
    QFETCH(QString, dir);
    const auto model = loadCheckpoint(dataDir(dir));
    // 150 tokens where the model has room (the first two 64-row tiles then take the last run's head outputs).
    const int n = std::min(150, model->info().maxTokens), changed = n - 10;
    const TokenizedText before = someIds(*model, n);
    TokenizedText edited = before;
    edited.ids[changed] = (edited.ids[changed] + 1) % model->vocabularySize();
    Intervention tile;
    tile.maps = MapKeeping::Never;
    tile.ablate = {{0, 1}};
    const Trace last = model->forward(before, {}, tile);
    // The text grown at the end (issue 31) from n − 5, n − 1 (one token typed) and 128 tokens (thumbnail cells of 2
    // tokens; n's are 4: the earlier cells are pooled) — every earlier row taken, only the new ones attended.
    std::vector<TokenizedText> olds = {before};
    for (const int m : {n - 5, n - 1, 128}) {
      if (m >= n) continue;
      TokenizedText grown = before;
      grown.ids.resize(static_cast<std::size_t>(m));
      grown.tokens.resize(static_cast<std::size_t>(m));
      olds.push_back(grown);
    }
    for (std::size_t c = 0; c < olds.size(); ++c) {
      const TokenizedText& now = c == 0 ? edited : before;
      const TokenizedText& old = olds[c];
      const Trace previous = c == 0 ? last : model->forward(old, {}, tile);
      Intervention withPrefix = tile;
      withPrefix.prefix = &previous;
      QCOMPARE(reusablePrefixRows(withPrefix, now.ids, model->info().layers, false),
               c == 0 ? changed : static_cast<int>(old.ids.size()));
      const Trace reused = model->forward(now, {}, withPrefix);
      const Trace full = model->forward(now, {}, tile);
      // The products run on fewer rows, so the kernels round differently: the same tolerance as kept vs tiled.
      for (int l = 0; l < full.layerCount(); ++l) {
        ATTNLAB_COMPARE_MATRICES(reused.layers[l].residualOut, full.layers[l].residualOut, 1e-4);
        ATTNLAB_COMPARE_MATRICES(mlpOutOf(reused, l), mlpOutOf(full, l), 1e-4);
        ATTNLAB_COMPARE_MATRICES(reused.layers[l].concat, full.layers[l].concat, 1e-4);
        for (int h = 0; h < full.headCount(); ++h) {
          ATTNLAB_COMPARE_MATRICES(reused.layers[l].heads[h].k(), full.layers[l].heads[h].k(), 1e-4);
          ATTNLAB_COMPARE_MATRICES(reused.layers[l].heads[h].summary.thumbMean,
                                   full.layers[l].heads[h].summary.thumbMean, 1e-4);
          // The edited text's summary takes the row bands before the change from the last run (same length).
          const HeadSummary &r = reused.layers[l].heads[h].summary, &f = full.layers[l].heads[h].summary;
          QCOMPARE(r.tokens, f.tokens);
          QVERIFY(std::abs(r.entropy - f.entropy) <= 1e-4 * std::max(1.0, f.entropy));
          QVERIFY(std::abs(r.sinkShare - f.sinkShare) <= 1e-5);
          QVERIFY(std::abs(r.previousToken - f.previousToken) <= 1e-5);
          QVERIFY(std::abs(r.meanDistance - f.meanDistance) <= 1e-4 * std::max(1.0, f.meanDistance));
          ATTNLAB_COMPARE_MATRICES(r.thumbMax, f.thumbMax, 1e-4);
        }
      }
    }
    Intervention mean = tile;
    mean.mode = AblationMode::Mean;
    mean.prefix = &last;
    QCOMPARE(reusablePrefixRows(mean, edited.ids, model->info().layers, false), 0);
    Intervention kept = tile;
    kept.prefix = &last;
    QCOMPARE(reusablePrefixRows(kept, edited.ids, model->info().layers, /*keepMaps=*/true), 0);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTiledForward)
#include "test_tiled_forward.moc"
