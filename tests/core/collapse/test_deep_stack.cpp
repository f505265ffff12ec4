// Deep stacks (core/collapse/deep_stack.h, collapse_experiment.h, path_analysis.h): the paper's claims as
// checks — pure attention collapses doubly exponentially, skip connections prevent it — plus
// overflow handling, the pluggable attention, path counts and the settings' JSON.
#include <QtTest>

#include <atomic>
#include <cmath>

#include "core/base/errors.h"
#include "core/base/gaussian_fill.h"
#include "core/collapse/deep_stack.h"
#include "core/run/collapse_experiment.h"
#include "core/run/path_analysis.h"
#include "core/session/params_json.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

Params smallParams(int depth, std::vector<StackConfig> configs, InitScheme init = InitScheme::LeCun) {
  Params p;
  p.collapse.depth = depth;
  p.collapse.tokens = 16;
  p.collapse.dModel = 32;
  p.collapse.heads = 4;
  p.collapse.seeds = 3;
  p.collapse.init = init;
  p.collapse.configs = std::move(configs);
  return p;
}

bool allFinite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

}  // namespace

class TestDeepStack : public QObject {
  Q_OBJECT
 private slots:
  void pureAttentionCollapsesSkipDoesNot_data() {
    QTest::addColumn<int>("init");
    QTest::newRow("lecun") << int(InitScheme::LeCun);
    QTest::newRow("xavier") << int(InitScheme::Xavier);
    QTest::newRow("bert") << int(InitScheme::Bert);
  }
  void pureAttentionCollapsesSkipDoesNot() {
    QFETCH(int, init);
    const Params p = smallParams(12, {StackConfig::San, StackConfig::SanSkip}, InitScheme(init));
    const CollapseResult r = runCollapse(p);
    const CollapseCurve& san = r.curves[0];
    const CollapseCurve& skip = r.curves[1];
    QCOMPARE(san.validDepth(), 12);
    // Below 1e-6 within a handful of layers (every seed), then at machine precision for good.
    int first = -1;
    for (int l = 0; l <= 12 && first < 0; ++l)
      if (san.max[l] < 1e-6) first = l;
    QVERIFY2(first >= 1 && first <= 5, qPrintable(QString("pure SAN reached 1e-6 at layer %1").arg(first)));
    for (int l = first + 2; l <= 12; ++l) QVERIFY2(san.max[l] < 1e-13, qPrintable(QString("layer %1").arg(l)));
    // Faster than exponential: each step at least squares the drop while far from precision.
    for (int l = 1; l < first; ++l)
      if (san.median[l] < 0.5 && san.median[l + 1] > 1e-14)
        QVERIFY(san.median[l + 1] < san.median[l] * san.median[l] * 4);
    // With skip connections the residual stays far above at the same depth.
    for (int l = 0; l <= 12; ++l)
      QVERIFY2(skip.min[l] > 1e-4, qPrintable(QString("skip layer %1: %2").arg(l).arg(skip.min[l])));
    QVERIFY(QString::fromStdString(r.reading).startsWith("pure attention: rank 1 after"));
  }

  void depth128NeverNanOrInf_data() {
    QTest::addColumn<int>("init");
    QTest::newRow("lecun") << int(InitScheme::LeCun);
    QTest::newRow("xavier") << int(InitScheme::Xavier);
    QTest::newRow("bert") << int(InitScheme::Bert);
  }
  void depth128NeverNanOrInf() {
    QFETCH(int, init);
    Params p = smallParams(128, CollapseSettings::allStackConfigs(), InitScheme(init));
    p.collapse.tokens = 8;
    p.collapse.dModel = 16;
    p.collapse.heads = 2;
    p.collapse.seeds = 2;
    const CollapseResult r = runCollapse(p);
    for (const CollapseCurve& c : r.curves) {
      QVERIFY(allFinite(c.median) && allFinite(c.min) && allFinite(c.max));
      for (const auto& seed : c.perSeed) QVERIFY(allFinite(seed));
      // A curve is complete or says where and why it stopped.
      QVERIFY(c.validDepth() == 128 || (c.stoppedAt == c.validDepth() + 1 && !c.stopReason.empty()));
    }
    const std::string json = collapseToJson(r).dump();
    QVERIFY(json.find("NaN") == std::string::npos && json.find("Infinity") == std::string::npos);
  }

  void overflowStopsAndMarks() {
    // Weights ×1000 without LayerNorm: values grow ~10⁶ per layer and must stop before leaving doubles.
    StackWeights w = makeStackWeights(8, 2, 128, InitScheme::LeCun, 7);
    for (StackLayerWeights& l : w.layers) {
      l.wv *= 1000;
      l.wo *= 1000;
    }
    const MatD x0 = randomStackInput(5, 8, 3);
    const StackRun run = runStack(StackConfig::SanSkip, w, 128, x0, softmaxAttention(4));
    QVERIFY(run.stoppedAt > 0 && run.stoppedAt < 128);
    QCOMPARE(run.stopReason, std::string("overflow"));
    QCOMPARE(run.reachedDepth(), run.stoppedAt - 1);
    QVERIFY(allFinite(run.residual));
    const CollapseCurve c = aggregateRuns(StackConfig::SanSkip, {run});
    QCOMPARE(c.stoppedAt, run.stoppedAt);
    QVERIFY(QString::fromStdString(readCurve(c, 128)).contains("overflow"));
  }

  void pluggedAttentionIsUsed() {
    // A uniform-average "attention" makes every row the mean row: exactly rank 1 after one layer.
    const AttentionFn uniform = [](const MatD& q, const MatD& k, const MatD& v, MatD* weights) {
      const MatD a = MatD::Constant(q.rows(), k.rows(), 1.0 / static_cast<double>(k.rows()));
      if (weights) *weights = a;
      return MatD(a * v);
    };
    const StackWeights w = makeStackWeights(8, 2, 3, InitScheme::LeCun, 1);
    StackOptions o;
    o.keepAttention = true;
    const StackRun run = runStack(StackConfig::San, w, 3, randomStackInput(6, 8, 2), uniform, o);
    QVERIFY(run.residual[0] > 0.1);
    QVERIFY(run.residual[1] < 1e-15);
    QCOMPARE(run.attention[0].size(), std::size_t(2));
    QCOMPARE(run.attention[0][1](2, 3), 1.0 / 6);
  }

  void variantsNotYetAvailableFailClearly_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QString>("message");
    QTest::newRow("softmax") << "softmax"
                             << "";
    QTest::newRow("linear") << "linear"
                            << "not available in the deep stack yet";
    QTest::newRow("performer") << "performer"
                               << "not available in the deep stack yet";
    QTest::newRow("typo") << "sofmax"
                          << "unknown attention variant 'sofmax'";
  }
  void variantsNotYetAvailableFailClearly() {
    QFETCH(QString, variant);
    QFETCH(QString, message);
    Params p = smallParams(2, {StackConfig::San});
    p.collapse.variant = variant.toStdString();
    try {
      runCollapse(p);
      QVERIFY(message.isEmpty());
    } catch (const InputError& e) {
      QVERIFY2(!message.isEmpty() && QString(e.what()).contains(message), e.what());
    }
  }

  void pathCounts_data() {
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("length");
    QTest::addColumn<int>("heads");
    QTest::addColumn<double>("count");
    QTest::newRow("C(4,2)·3² = 54") << 4 << 2 << 3 << 54.0;
    QTest::newRow("C(6,0) = 1") << 6 << 0 << 8 << 1.0;
    QTest::newRow("C(6,6)·2⁶ = 64") << 6 << 6 << 2 << 64.0;
    QTest::newRow("C(32,16)·4¹⁶") << 32 << 16 << 4 << 601080390.0 * std::pow(4.0, 16);
  }
  void pathCounts() {
    QFETCH(int, layers);
    QFETCH(int, length);
    QFETCH(int, heads);
    QFETCH(double, count);
    QVERIFY(std::abs(log10PathCount(layers, length, heads) - std::log10(count)) < 1e-12);
  }

  void pathProductsLoseRank() {
    Params p = smallParams(16, {StackConfig::SanSkip});
    p.collapse.pathSamples = 4;
    const PathAnalysis a = runPathAnalysis(p);
    QCOMPARE(static_cast<int>(a.log10Count.size()), 17);
    QCOMPARE(a.lengths.front(), 0);
    QVERIFY(std::abs(a.median.front() - std::sqrt(15.0 / 16)) < 1e-12);  // the identity: √((n−1)/n)
    QVERIFY(a.median.back() < 1e-6);                                     // a 16-matrix product: rank 1
  }

  void cancelStopsTheRun() {
    std::atomic<bool> cancel{true};
    RunControl control;
    control.cancel = &cancel;
    QVERIFY_THROWS_EXCEPTION(Cancelled, runCollapse(smallParams(8, {StackConfig::San}), control));
  }

  void settingsRoundTripThroughJson() {
    Params p;
    p.collapse.depth = 77;
    p.collapse.init = InitScheme::Bert;
    p.collapse.configs = {StackConfig::PreLn, StackConfig::San};
    p.collapse.norm = ResidualNorm::Frobenius;
    p.collapse.input = CollapseInput::Sentence;
    p.collapse.inspectConfig = StackConfig::SanLn;
    p.collapse.seed = 12345678901ull;
    p.collapse.mlpGain = 2.5;
    const Params back = paramsFromJson(toJson(p));
    QCOMPARE(toJson(back).dump(), toJson(p).dump());
    QCOMPARE(back.collapse.mlpGain, 2.5);
    // A session written before the gain existed keeps the plain init.
    QCOMPARE(paramsFromJson(nlohmann::json::parse(R"({"collapse": {"depth": 8}})")).collapse.mlpGain, 1.0);
  }

  void mlpGainScalesOnlyTheMlpOutput() {
    // g multiplies W2 and nothing else: MLP(x) = g·MLP₁(x), so the MLP's Lipschitz constant is g times the init's.
    const StackLayerWeights plain = makeLayerWeights(16, InitScheme::LeCun, 5, 2);
    const StackLayerWeights gained = makeLayerWeights(16, InitScheme::LeCun, 5, 2, 3.0);
    QCOMPARE(gained.w1, plain.w1);
    QCOMPARE(gained.wq, plain.wq);
    QCOMPARE(gained.wo, plain.wo);
    QVERIFY((gained.w2 - 3.0 * plain.w2).cwiseAbs().maxCoeff() < 1e-12);
  }

  void badSettingsNameTheField_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("depth") << R"({"collapse": {"depth": 500}})"
                           << "collapse.depth must be between 1 and 128";
    QTest::newRow("heads") << R"({"collapse": {"d_model": 10, "heads": 3}})"
                           << "collapse.heads must divide";
    QTest::newRow("config") << R"({"collapse": {"configs": ["san", "resnet"]}})"
                            << "collapse.configs[1]";
    QTest::newRow("twice") << R"({"collapse": {"configs": ["san", "san"]}})"
                           << "lists 'san' twice";
    QTest::newRow("init") << R"({"collapse": {"init": "he"}})"
                          << "collapse.init";
    QTest::newRow("type") << R"({"collapse": {"seeds": "five"}})"
                          << "collapse.seeds must be an integer";
    QTest::newRow("gain") << R"({"collapse": {"mlp_gain": 0}})"
                          << "collapse.mlp_gain must be between 0.01 and 100";
    QTest::newRow("gain type") << R"({"collapse": {"mlp_gain": "high"}})"
                               << "collapse.mlp_gain must be a number";
  }
  void badSettingsNameTheField() {
    QFETCH(QString, json);
    QFETCH(QString, message);
    try {
      paramsFromJson(nlohmann::json::parse(json.toStdString()));
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(message), e.what());
    }
  }

  void gaussianWeightsHaveTheRequestedSpread() {
    Rng rng(99);
    MatD m(400, 500);
    fillGaussian(m, 0.02, rng);
    const double mean = m.mean(), var = (m.array() - mean).square().mean();
    QVERIFY(std::abs(mean) < 0.02 * 0.01);
    QVERIFY(std::abs(std::sqrt(var) / 0.02 - 1) < 0.005);
    const double tail = (m.array().abs() > 3 * 0.02).cast<double>().mean();  // P(|z| > 3) = 0.0027
    QVERIFY(std::abs(tail - 0.0027) < 0.0004);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestDeepStack)
#include "test_deep_stack.moc"
