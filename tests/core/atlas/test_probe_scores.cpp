// The head atlas's probe and probe scores (core/atlas/atlas_probe.h, probe_scores.h): hand-made traces whose
// attention is a known pattern score exactly what the pattern is; the probe has the shape [BOS] r… r… on the GPT-2
// fixture, [CLS] … [SEP] on BERT, <bos> on the tiny models and words on the built-in model; too long a probe and
// T < 2 are refused; buildProbeAtlas fills every probe score and keeps the trace.
#include <QtTest>

#include <atomic>
#include <cmath>
#include <set>

#include "core/atlas/atlas_builder.h"
#include "core/atlas/atlas_probe.h"
#include "core/atlas/probe_scores.h"
#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/builtin_model.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string testData(const std::string& rel) { return std::string(ATTNLAB_TEST_DATA) + "/" + rel; }

/// A probe of T tokens after one BOS, without ids (the scores read only the positions).
AtlasProbe handProbe(int repeat) {
  AtlasProbe p;
  p.repeat = repeat;
  p.offset = 1;
  p.tokens.assign(static_cast<std::size_t>(1 + 2 * repeat), "x");
  return p;
}

/// One layer whose heads have the given attention maps.
Trace handTrace(const std::vector<Mat>& maps) {
  Trace t;
  const auto n = static_cast<std::size_t>(maps.front().rows());
  t.tokens.assign(n, "x");
  t.causal = true;
  LayerTrace layer;
  for (const Mat& a : maps) {
    HeadTrace h;
    h.attention = a;
    layer.heads.push_back(h);
  }
  t.layers.push_back(layer);
  return t;
}

/// Row i puts all its weight on column target(i) (clamped to [0, i]).
template <class F>
Mat pattern(int n, F target) {
  Mat a = Mat::Zero(n, n);
  for (int i = 0; i < n; ++i) a(i, std::clamp(target(i), 0, i)) = 1.0f;
  return a;
}

double score(const std::map<std::string, HeadGrid>& s, const std::string& name, int head) {
  return s.at(name)[0][static_cast<std::size_t>(head)];
}

}  // namespace

class TestProbeScores : public QObject {
  Q_OBJECT

 private slots:
  void pureHeadsScoreWhatTheyAre() {
    const int T = 5, n = 1 + 2 * T;
    const Mat previous = pattern(n, [](int i) { return i - 1; });
    const Mat induction = pattern(n, [&](int i) { return i > T ? i - T + 1 : i; });
    const Mat duplicate = pattern(n, [&](int i) { return i > T ? i - T : i; });
    const Mat bos = pattern(n, [](int) { return 0; });
    const auto s = probeScores(handTrace({previous, induction, duplicate, bos}), handProbe(T));
    // Head 0 attends to the previous token from every row but row 0 (which can only see itself).
    QCOMPARE(score(s, "previous_token", 0), 1.0);
    QCOMPARE(score(s, "induction", 0), 0.0);
    QCOMPARE(score(s, "duplicate_token", 0), 0.0);
    QCOMPARE(score(s, "induction", 1), 1.0);
    QCOMPARE(score(s, "duplicate_token", 1), 0.0);
    QCOMPARE(score(s, "duplicate_token", 2), 1.0);
    QCOMPARE(score(s, "induction", 2), 0.0);
    QCOMPARE(score(s, "bos", 3), 1.0);
    for (int h = 0; h < 4; ++h) QCOMPARE(score(s, "entropy", h), 0.0);
    // Mean distance of a previous-token head: 1 on every row but row 0.
    QCOMPARE(score(s, "mean_distance", 0), (n - 1.0) / n);
    double bosDistance = 0;
    for (int i = 0; i < n; ++i) bosDistance += i;
    QCOMPARE(score(s, "mean_distance", 3), bosDistance / n);
  }

  void bosShareCountsRowZero() {
    const int T = 3, n = 1 + 2 * T;
    const auto s = probeScores(handTrace({pattern(n, [](int i) { return i - 1; })}), handProbe(T));
    QCOMPARE(score(s, "bos", 0), 2.0 / n);  // rows 0 and 1
  }

  void uniformRowsHaveLogEntropy() {
    const int T = 2, n = 1 + 2 * T;
    Mat a = Mat::Zero(n, n);
    for (int i = 0; i < n; ++i) a.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
    const auto s = probeScores(handTrace({a}), handProbe(T));
    double entropy = 0, distance = 0;
    for (int i = 0; i < n; ++i) entropy += std::log(i + 1.0), distance += i / 2.0;
    QVERIFY(std::abs(score(s, "entropy", 0) - entropy / n) < 1e-6);
    QVERIFY(std::abs(score(s, "mean_distance", 0) - distance / n) < 1e-6);
    QVERIFY(std::abs(score(s, "previous_token", 0) - (1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5) / 4) < 1e-6);
  }

  void accumulatorAveragesOverAllRows() {
    PatternScoreAccumulator acc;
    QVERIFY(acc.grids().at("bos").empty());
    acc.add(handTrace({pattern(4, [](int i) { return i - 1; })}));
    acc.add(handTrace({pattern(3, [](int) { return 0; })}));
    const auto g = acc.grids("corpus_");
    QCOMPARE(acc.rows(), 7LL);
    // previous_token: rows 1..3 of the first window (1 each), rows 1..2 of the second (row 1's A[1, 0] = 1, 0).
    QCOMPARE(g.at("corpus_previous_token")[0][0], 4.0 / 5.0);
    QCOMPARE(g.at("corpus_bos")[0][0], 5.0 / 7.0);  // rows 0, 1 of the first; all three of the second
    PatternScoreAccumulator other, joined;
    other.add(handTrace({pattern(3, [](int) { return 0; })}));
    joined.add(handTrace({pattern(4, [](int i) { return i - 1; })}));
    joined.merge(other);
    QCOMPARE(joined.grids().at("bos")[0][0], 5.0 / 7.0);
    QVERIFY_THROWS_EXCEPTION(InputError, acc.add(handTrace({Mat::Identity(3, 3), Mat::Identity(3, 3)})));
  }

  void gpt2ProbeHasEndOfTextFirst() {
    const auto m = loadCheckpoint(testData("fixtures/lm-buddy/tiny_gpt2"));
    const AtlasProbe p = makeProbe(*m, 6, 7);
    const int eot = m->vocabularyId("<|endoftext|>");
    QCOMPARE(p.offset, 1);
    QCOMPARE(p.suffix, 0);
    QCOMPARE(static_cast<int>(p.ids.size()), 13);
    QCOMPARE(p.ids[0], eot);
    QCOMPARE(p.tokens[0], std::string("<|endoftext|>"));
    std::set<int> distinct;
    for (int i = 1; i <= 6; ++i) {
      QCOMPARE(p.ids[static_cast<std::size_t>(i)], p.ids[static_cast<std::size_t>(i + 6)]);
      QCOMPARE(p.tokens[static_cast<std::size_t>(i)], m->vocabularyPiece(p.ids[static_cast<std::size_t>(i)]));
      QVERIFY(p.ids[static_cast<std::size_t>(i)] != eot);
      QVERIFY(p.tokens[static_cast<std::size_t>(i)] != "<unk>");
      distinct.insert(p.ids[static_cast<std::size_t>(i)]);
    }
    QCOMPARE(distinct.size(), std::size_t(6));
    QVERIFY(p.notes.empty());
    QCOMPARE(makeProbe(*m, 6, 7).ids, p.ids);  // the seed fixes the probe
    QVERIFY(makeProbe(*m, 6, 8).ids != p.ids);
    // 21 pieces, two special: 19 ordinary tokens cannot fill a copy of 30 without repeating.
    const AtlasProbe repeated = makeProbe(*m, 30, 1);
    QCOMPARE(repeated.notes.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(repeated.notes[0]).contains("19"));
  }

  void bertProbeIsFramedByClsAndSep() {
    const auto m = loadCheckpoint(testData("fixtures/lm-buddy/bert_tiniest"));
    const AtlasProbe p = makeProbe(*m, 4, 3);
    QCOMPARE(p.offset, 1);
    QCOMPARE(p.suffix, 1);
    QCOMPARE(p.tokens.front(), std::string("[CLS]"));
    QCOMPARE(p.tokens.back(), std::string("[SEP]"));
    for (std::size_t i = 1; i + 1 < p.tokens.size(); ++i) QVERIFY(!looksLikeSpecialPiece(p.tokens[i]));
    const HeadAtlas atlas = buildProbeAtlas(*m, {4, 3});
    QCOMPARE(atlas.probeTrace->tokenCount(), 10);
    QCOMPARE(static_cast<int>(atlas.metrics.at("induction").size()), m->info().layers);
  }

  void tinyAndBuiltinModels() {
    const auto tiny = loadShippedModel(kShippedInductionModel);
    const AtlasProbe p = makeProbe(*tiny, 5, 1);
    QCOMPARE(p.ids.front(), 0);
    QCOMPARE(p.offset, 1);
    for (std::size_t i = 1; i < p.ids.size(); ++i) QVERIFY(p.ids[i] >= 2);
    BuiltinModel builtin(ModelConfig{});
    const AtlasProbe w = makeProbe(builtin, 5, 1);
    QCOMPARE(w.offset, 0);
    QVERIFY(w.ids.empty());
    QCOMPARE(w.tokens.size(), std::size_t(10));
    QCOMPARE(w.tokens[0], w.tokens[5]);
    const HeadAtlas atlas = buildProbeAtlas(builtin, {5, 1});
    QCOMPARE(atlas.probeTrace->tokens, w.tokens);
  }

  void badLengthsAreRefused() {
    const auto tiny = loadShippedModel(kShippedInductionModel);
    const int context = tiny->info().maxTokens;
    try {
      makeProbe(*tiny, context, 1);
      QFAIL("a probe longer than the context was accepted");
    } catch (const InputError& e) {
      const QString message = e.what();
      QVERIFY2(message.contains(QString::number(context)) && message.contains(QString::number(2 * context + 1)),
               e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, makeProbe(*tiny, 1, 1));
  }

  void builderScoresTheProbe() {
    const auto m = loadCheckpoint(testData("fixtures/lm-buddy/tiny_gpt2"));
    const HeadAtlas atlas = buildProbeAtlas(*m, {8, 2});
    QCOMPARE(atlas.layers, 1);
    QCOMPARE(atlas.heads, 1);
    QVERIFY(atlas.probeTrace);
    QCOMPARE(atlas.probeTrace->tokenIds, atlas.probe.ids);
    const auto direct = probeScores(*atlas.probeTrace, atlas.probe);
    for (const char* name : {"previous_token", "induction", "duplicate_token", "bos", "entropy", "mean_distance"})
      QCOMPARE(atlas.metrics.at(name), direct.at(name));
    std::atomic<bool> stop{true};
    RunControl control;
    control.cancel = &stop;
    QVERIFY_THROWS_EXCEPTION(Cancelled, buildProbeAtlas(*m, {8, 2}, control));
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestProbeScores)
#include "test_probe_scores.moc"
