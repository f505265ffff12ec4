// What the window reuses when a head is switched on or off (issue 16's toggle target) gives the numbers of the full
// computation: compareRuns from logits the caller has, the readout copying the lens rows of unchanged streams, and
// the attribution copying the head shares of unchanged layers. Each copy is checked against a fresh computation on
// GPT-2 and a grouped-query Llama fixture, and the reuse criterion is shown to be what decides (a planted row is
// copied only where the stream is bit for bit the same; another position or target copies nothing wrong).
#include <QtTest>

#include <cmath>
#include <memory>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/predict/attribution.h"
#include "core/predict/prediction.h"
#include "core/predict/run_comparison.h"

using namespace attnlab;

namespace {

std::shared_ptr<const HfModel> open(const char* name) {
  return loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/" + name);
}

/// A run of `text` with head (layer, 0) zero-ablated, copying the layers before it from `plain`, as the window does.
Trace toggled(const Model& m, const TokenizedText& text, const Trace& plain, int layer) {
  Intervention iv;
  iv.ablate = {{layer, 0}};
  iv.reuse = &plain;
  iv.reuseLayers = firstDifferingLayer(Intervention{}, iv, m.info().layers);
  return m.forward(text, {}, iv);
}

/// KL(p ‖ q) of softmax(z / T) in double, written out from the definition.
double klReference(const Vec& zp, const Vec& zq, double t) {
  const VecD p = softmaxAt(zp, t), q = softmaxAt(zq, t);
  return (p.array() * (p.array().log() - q.array().log())).sum();
}

void compareReadouts(const PositionReadout& got, const PositionReadout& fresh) {
  QCOMPARE(got.lens.size(), fresh.lens.size());
  for (std::size_t l = 0; l < fresh.lens.size(); ++l) {
    QCOMPARE(got.lens[l].layer, fresh.lens[l].layer);
    QCOMPARE(got.lens[l].top.size(), fresh.lens[l].top.size());
    for (std::size_t i = 0; i < fresh.lens[l].top.size(); ++i) {
      QCOMPARE(got.lens[l].top[i].id, fresh.lens[l].top[i].id);
      QVERIFY(std::abs(got.lens[l].top[i].prob - fresh.lens[l].top[i].prob) <= 1e-6);
    }
  }
  QVERIFY((got.logits - fresh.logits).cwiseAbs().maxCoeff() <= 1e-5f);
  QCOMPARE(got.top.size(), fresh.top.size());
  for (std::size_t i = 0; i < fresh.top.size(); ++i) QCOMPARE(got.top[i].id, fresh.top[i].id);
}

}  // namespace

class TestToggleReuse : public QObject {
  Q_OBJECT

 private slots:
  void comparisonFromLogitsEqualsTheStreams() {
    const auto model = open("models/gpt2_tiny");
    const TokenizedText text = model->tokenize("The cat sat on the mat because it was warm");
    const Trace plain = model->forward(text);
    const Trace ablated = toggled(*model, text, plain, 0);
    const Unembedding& u = *model->unembedding();
    for (double t : {1.0, 0.6}) {
      const RunComparison streams = compareRuns(u, plain, ablated, 3, -1, t);
      const Vec zp = rowLogits(u, plain.layers.back().residualOut.row(3).transpose());
      const RunComparison logits = compareRuns(zp, streams.changedLogits, -1, t);
      QCOMPARE(logits.target, streams.target);
      QVERIFY(std::abs(logits.plainProb - streams.plainProb) <= 1e-9);
      QVERIFY(std::abs(logits.changedProb - streams.changedProb) <= 1e-9);
      const double kl = klReference(zp, streams.changedLogits, t);
      QVERIFY(kl > 1e-6);  // the ablation does change the distribution
      QVERIFY2(std::abs(logits.kl - kl) <= 1e-6 * kl, qPrintable(QString::number(logits.kl - kl)));
      QCOMPARE(compareRuns(zp, zp, 5, t).kl, 0.0);
      QVERIFY(std::abs(compareRuns(zp, Vec(zp.array() + 3.0f), 5, t).kl) <= 1e-12);  // a shift changes no probability
      Vec nudged = zp;  // a tiny change keeps its digits: no cancellation against the log-sum-exps
      nudged(0) += 1e-3f;
      const double tiny = klReference(zp, nudged, t);
      QVERIFY(tiny > 0.0 && tiny < 1e-6);
      QVERIFY2(std::abs(compareRuns(zp, nudged, -1, t).kl - tiny) <= 1e-3 * tiny,
               qPrintable(QString::number(compareRuns(zp, nudged, -1, t).kl / tiny)));
    }
    QVERIFY_THROWS_EXCEPTION(InputError, compareRuns(Vec::Zero(4), Vec::Zero(5), -1));
    QVERIFY_THROWS_EXCEPTION(InputError, compareRuns(Vec::Zero(4), Vec::Zero(4), 4));
  }

  void readoutCopiesOnlyUnchangedStreams() {
    for (const char* name : {"models/gpt2_tiny", "decoders/llama-gqa"}) {
      const auto model = open(name);
      const TokenizedText text = model->tokenize("The cat sat on the mat because it was warm");
      const Trace plain = model->forward(text);
      const int layers = plain.layerCount();
      const PositionReadout before = readPosition(*model, plain, -1, 5, 0.8, 2);
      for (int layer : {0, layers - 1}) {
        const Trace t = toggled(*model, text, plain, layer);
        compareReadouts(readPosition(*model, t, -1, 5, 0.8, 2, before), readPosition(*model, t, -1, 5, 0.8, 2));
      }
      // A planted lens row is copied where the stream is the same and recomputed where one value differs.
      const Trace t = toggled(*model, text, plain, layers - 1);
      PositionReadout planted = before;
      planted.lens[1].top[0].id = -7;                                 // the stream after layer 0: unchanged
      planted.lens[static_cast<std::size_t>(layers)].top[0].id = -7;  // the final stream: changed by the toggle
      const PositionReadout got = readPosition(*model, t, -1, 5, 0.8, 2, planted);
      QCOMPARE(got.lens[1].top[0].id, -7);
      QVERIFY(got.lens[static_cast<std::size_t>(layers)].top[0].id >= 0);
      planted.streams(1, 0) = std::nextafter(planted.streams(1, 0), 1e9f);  // one ulp: not the same stream
      QVERIFY(readPosition(*model, t, -1, 5, 0.8, 2, planted).lens[1].top[0].id >= 0);
      // Another position or another lens depth copies nothing.
      compareReadouts(readPosition(*model, t, 2, 5, 0.8, 2, before), readPosition(*model, t, 2, 5, 0.8, 2));
      compareReadouts(readPosition(*model, t, -1, 5, 0.8, 3, before), readPosition(*model, t, -1, 5, 0.8, 3));
    }
  }

  void attributionCopiesOnlyUnchangedLayers() {
    for (const char* name : {"models/gpt2_tiny", "decoders/llama-gqa"}) {
      const auto model = open(name);
      const TokenizedText text = model->tokenize("The cat sat on the mat because it was warm");
      const Trace plain = model->forward(text);
      const OutputProjections w = readOutputProjections(*model, text);
      const HeadContributions before = headContributions(w, plain, -1);
      const int layers = plain.layerCount();
      const Trace t = toggled(*model, text, plain, layers - 1);
      const HeadContributions reused = headContributions(w, t, -1, &before);
      const HeadContributions fresh = headContributions(w, t, -1);
      for (int l = 0; l < layers; ++l) QCOMPARE(reused.heads[l], fresh.heads[l]);
      QVERIFY(reused.heads[layers - 1] != before.heads[layers - 1]);  // the toggled layer is recomputed
      // Any target, with the final norm's scale of the toggled run: the same attribution, adding up to the logit.
      for (int target : {predict(*model, t, -1, 1)[0].id, 5}) {
        const Attribution a = directLogitAttribution(*model, t, reused, target, 7);
        const Attribution b = directLogitAttribution(*model, t, fresh, target, 7);
        QCOMPARE(a.heads, b.heads);
        QCOMPARE(a.mlp, b.mlp);
        QVERIFY(std::abs(a.total() - a.logit) <= 1e-4 * std::max(1.0, std::abs(a.logit)));
      }
      // A planted share is copied where the heads' outputs are the same, not in the toggled layer nor elsewhere.
      HeadContributions planted = before;
      planted.heads[0](0, 0) = 1234.5f;
      planted.heads[static_cast<std::size_t>(layers - 1)](0, 0) = 1234.5f;
      const HeadContributions got = headContributions(w, t, -1, &planted);
      QCOMPARE(got.heads[0](0, 0), 1234.5f);
      QVERIFY(got.heads[static_cast<std::size_t>(layers - 1)](0, 0) != 1234.5f);
      QVERIFY(headContributions(w, t, 2, &planted).heads[0](0, 0) != 1234.5f);
    }
  }
};

QTEST_MAIN(TestToggleReuse)
#include "test_toggle_reuse.moc"
