// A forward pass that keeps no maps (MapKeeping::Never, what long inputs get, issue 18) equals the one that keeps
// them (Always) on every model family: the same residual streams and head outputs to float rounding, each head's map
// recomputed on demand equal to the stored one, the same summaries, and `attnlab dump`'s JSON of the recomputed maps
// equal to that of the stored ones. Exercises GPT-2, BERT, grouped-query Llama, Mistral's window and Gemma 2's
// soft-cap at 40 tokens (below the tile size and across tile boundaries for the window).
#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "core/model/head_maps.h"
#include "core/model/trace_json.h"
#include "tests/fuzzy_compare.h"

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
    for (int l = 0; l < kept.layerCount(); ++l) {
      ATTNLAB_COMPARE_MATRICES(tiled.layers[l].residualOut, kept.layers[l].residualOut, 1e-4);
      for (int h = 0; h < kept.headCount(); ++h) {
        const HeadTrace& a = kept.layers[l].heads[h];
        const HeadTrace& b = tiled.layers[l].heads[h];
        QVERIFY(a.keepsMaps() && !b.keepsMaps());
        ATTNLAB_COMPARE_MATRICES(b.output, a.output, 1e-4);
        ATTNLAB_COMPARE_MATRICES(headAttention(b), a.attention, 1e-5);
        ATTNLAB_COMPARE_MATRICES(headScores(b), a.scores, 1e-5);
        QVERIFY(std::abs(b.summary.entropy - a.summary.entropy) < 1e-4);
        ATTNLAB_COMPARE_MATRICES(b.summary.thumbMax, a.summary.thumbMax, 1e-5);
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
};

QTEST_GUILESS_MAIN(TestTiledForward)
#include "test_tiled_forward.moc"
