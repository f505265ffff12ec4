// What the window reuses when a head is switched on or off (issue 16's toggle target) gives the numbers of the full
// computation: compareRuns from logits the caller has, the readout copying the lens rows of unchanged streams, and
// the attribution from W_O projected once on the target's direction. Each is checked against a fresh computation on
// GPT-2 and a grouped-query Llama fixture, and the reuse criterion is shown to be what decides (a planted lens row
// is copied only where the stream is bit for bit the same; another position or lens depth copies nothing).
#include <QtTest>

#include <cmath>
#include <limits>
#include <memory>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/predict/attribution.h"
#include "core/predict/prediction.h"
#include "core/predict/run_comparison.h"
#include "tests/harness/test_registry.h"

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

/// KL(p ‖ q) of softmax(z / T) in double, from the log-softmaxes: Σ p·((z/T − lse) − (z'/T − lse')).
double klReference(const Vec& zp, const Vec& zq, double t) {
  const VecD a = zp.cast<double>() / t, b = zq.cast<double>() / t;
  const double la = a.maxCoeff() + std::log((a.array() - a.maxCoeff()).exp().sum());
  const double lb = b.maxCoeff() + std::log((b.array() - b.maxCoeff()).exp().sum());
  return ((a.array() - la).exp() * ((a.array() - la) - (b.array() - lb))).sum();
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
      // Within 0.5%: the float weights' rounding leaves ~1e-3 of a KL this small (2e-3 seen after the attention's
      // exponentials moved the logits by an ulp); the direct form lse' − lse + mean would miss it by ~100%.
      QVERIFY2(std::abs(compareRuns(zp, nudged, -1, t).kl - tiny) <= 5e-3 * tiny,
               qPrintable(QString::number(compareRuns(zp, nudged, -1, t).kl / tiny)));
      for (float jump : {30.0f, 300.0f}) {  // one token far up (at a low temperature): no float overflow
        Vec up = zp;
        up(0) += jump;
        const double big = klReference(zp, up, t / 10);
        QVERIFY2(std::abs(compareRuns(zp, up, -1, t / 10).kl - big) <= 1e-5 * std::max(1.0, big),
                 qPrintable(QString("%1 vs %2").arg(compareRuns(zp, up, -1, t / 10).kl).arg(big)));
      }
    }
    QVERIFY_THROWS_EXCEPTION(InputError, compareRuns(Vec::Zero(4), Vec::Zero(5), -1));
    QVERIFY_THROWS_EXCEPTION(InputError, compareRuns(Vec::Zero(4), Vec::Zero(4), 4));
  }

  void topOneIsTheFirstOfTheLargest() {
    // The lens rows take their top token from a vectorised argmax; it must agree with the general pass of k > 1
    // (the first of tied logits). Logits that are not finite are no prediction: both passes refuse them, naming the
    // first such token (they used to pick a token, or give an empty list that `attribute` crashed on).
    const auto model = open("models/gpt2_tiny");
    const Eigen::Index vocab = model->unembedding()->vocab;
    for (int tie : {0, 1, 17, 63, 64, 1000}) {
      if (tie + 40 >= vocab) continue;
      Vec z = Vec::Random(vocab);
      z(tie + 40) = z(tie) = 5.0f;
      QCOMPARE(topTokens(*model, z, 1)[0].id, tie);
      QCOMPARE(topTokens(*model, z, 2)[0].id, tie);
      z(9) = std::numeric_limits<float>::infinity();
      z(3) = std::numeric_limits<float>::quiet_NaN();
      for (int k : {1, 2}) {
        try {
          topTokens(*model, z, k);
          QFAIL("non-finite logits were taken");
        } catch (const InputError& e) {
          QVERIFY2(QString(e.what()).startsWith("the logits are not finite (token 3: NaN)"), e.what());
        }
      }
    }
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

  void projectedFormGivesTheAttribution() {
    for (const char* name : {"models/gpt2_tiny", "decoders/llama-gqa"}) {
      const auto model = open(name);
      const TokenizedText text = model->tokenize("The cat sat on the mat because it was warm");
      const Trace plain = model->forward(text);
      const OutputProjections w = readOutputProjections(*model, text);
      const int predicted = predict(*model, plain, -1, 1)[0].id;
      for (int layer : {0, plain.layerCount() - 1})
        for (auto [target, versus] : {std::pair{predicted, -1}, {5, 7}}) {
          // Made on the plain run, used on the toggled one (another final stream, so another σ) at two positions.
          const ProjectedForm form = projectedForm(*model, w, target, versus);
          const Trace t = toggled(*model, text, plain, layer);
          for (int position : {t.tokenCount() - 1, 2}) {
            const Attribution a = directLogitAttribution(*model, t, form, position);
            const Attribution b = directLogitAttribution(*model, t, headContributions(w, t, position), target, versus);
            QCOMPARE(a.target, target);
            QCOMPARE(a.versus, versus);
            QCOMPARE(a.position, position);
            const double scale = std::max(1.0, b.heads.cwiseAbs().maxCoeff());
            QVERIFY((a.heads - b.heads).cwiseAbs().maxCoeff() <= 1e-5 * scale);
            QCOMPARE(a.mlp, b.mlp);
            QCOMPARE(a.embeddings, b.embeddings);
            QVERIFY(std::abs(a.bias - b.bias) <= 1e-5 * std::max(1.0, std::abs(b.bias)));
            QCOMPARE(a.logit, b.logit);
            QVERIFY(std::abs(a.total() - a.logit) <= 1e-4 * std::max(1.0, std::abs(a.logit)));
          }
        }
      // Forms made together equal forms made alone, in the order asked.
      const std::vector<ProjectedForm> together = projectedForms(*model, w, {5, predicted, 7}, 3);
      QCOMPARE(together.size(), std::size_t(3));
      for (std::size_t j = 0; j < together.size(); ++j) {
        const ProjectedForm alone = projectedForm(*model, w, together[j].target, 3);
        QCOMPARE(together[j].versus, 3);
        QVERIFY(std::abs(together[j].outputBias - alone.outputBias) <=
                1e-9 * std::max(1.0, std::abs(alone.outputBias)));
        for (std::size_t l = 0; l < alone.heads.size(); ++l)
          QVERIFY((together[j].heads[l] - alone.heads[l]).cwiseAbs().maxCoeff() <=
                  1e-5 * std::max(1.0, alone.heads[l].cwiseAbs().maxCoeff()));
      }
      QCOMPARE(together[1].target, predicted);
      // Another target's form gives that target's attribution, not this one's.
      const Attribution other = directLogitAttribution(*model, plain, projectedForm(*model, w, 5), -1);
      const Attribution mine = directLogitAttribution(*model, plain, projectedForm(*model, w, predicted), -1);
      QVERIFY(predicted == 5 || std::abs(other.logit - mine.logit) > 1e-6);
      QVERIFY_THROWS_EXCEPTION(InputError, projectedForm(*model, w, static_cast<int>(model->unembedding()->vocab)));
    }
  }
};

ATTNLAB_TEST_MAIN(TestToggleReuse)
#include "test_toggle_reuse.moc"
