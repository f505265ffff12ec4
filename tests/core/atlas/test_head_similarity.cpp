// The heads' similarity, clustering and map (core/atlas/head_similarity.h): identical heads are similar 1 and
// clustered side by side; the Jensen–Shannon divergence of a 3-token example computed by hand; heads that never
// overlap are similar 0; classical MDS of three points with known distances reproduces them; the probe atlas
// fills all three.
#include <QtTest>

#include <cmath>

#include "core/atlas/atlas_builder.h"
#include "core/atlas/head_similarity.h"
#include "core/base/errors.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

/// One layer whose heads have the given attention maps (causal).
Trace handTrace(const std::vector<Mat>& maps, bool causal = true) {
  Trace t;
  t.tokens.assign(static_cast<std::size_t>(maps.front().rows()), "x");
  t.causal = causal;
  LayerTrace layer;
  for (const Mat& a : maps) {
    HeadTrace h;
    h.attention = a;
    layer.heads.push_back(h);
  }
  t.layers.push_back(layer);
  return t;
}

double entropy(const std::vector<double>& p) {
  double h = 0;
  for (double x : p)
    if (x > 0) h -= x * std::log(x);
  return h;
}

}  // namespace

class TestHeadSimilarity : public QObject {
  Q_OBJECT

 private slots:
  void identicalHeadsAreOneAndAdjacent() {
    const int n = 6;
    Mat previous = Mat::Zero(n, n), self = Mat::Identity(n, n), uniform = Mat::Zero(n, n);
    previous(0, 0) = 1;
    for (int i = 1; i < n; ++i) previous(i, i - 1) = 1;
    for (int i = 0; i < n; ++i) uniform.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
    // Heads 0 and 3 are the same previous-token head; 1 is the diagonal; 2 spreads evenly.
    const SimilarityMatrix s = headSimilarity(handTrace({previous, self, uniform, previous}));
    QCOMPARE(s.size(), std::size_t(4));
    QCOMPARE(s[0][3], 1.0);
    QCOMPARE(s[3][0], 1.0);
    QCOMPARE(s[1][1], 1.0);
    // One-hot rows on different keys share nothing: JSD = ln 2, similarity 0.
    QVERIFY(std::abs(s[0][1]) < 1e-6);  // float logs
    QVERIFY(s[0][2] > 0.0 && s[0][2] < 1.0);
    const std::vector<int> order = clusterOrder(s);
    QCOMPARE(order.size(), std::size_t(4));
    const auto at = [&](int h) { return std::find(order.begin(), order.end(), h) - order.begin(); };
    QCOMPARE(std::abs(at(0) - at(3)), 1L);
  }

  void jsdOfThreeTokensByHand() {
    // Two non-causal heads on 3 tokens; row 0 is skipped, rows 1 and 2 are compared.
    Mat p(3, 3), q(3, 3);
    p << 1, 0, 0, 0.5, 0.25, 0.25, 0.2, 0.3, 0.5;
    q << 0, 1, 0, 0.25, 0.25, 0.5, 0.6, 0.4, 0.0;
    const SimilarityMatrix s = headSimilarity(handTrace({p, q}, false));
    double jsd = 0;
    for (int i = 1; i < 3; ++i) {
      std::vector<double> a, b, m;
      for (int j = 0; j < 3; ++j) {
        a.push_back(p(i, j)), b.push_back(q(i, j));
        m.push_back(0.5 * (static_cast<double>(p(i, j)) + q(i, j)));
      }
      jsd += entropy(m) - 0.5 * (entropy(a) + entropy(b));
    }
    // Row 1: M = (0.375, 0.25, 0.375); row 2: M = (0.4, 0.35, 0.25).
    QVERIFY(std::abs(jsd / 2 - 0.5 * (0.0424748 + 0.2291953)) < 1e-6);
    QVERIFY(std::abs(s[0][1] - (1.0 - jsd / 2 / std::log(2.0))) < 1e-6);
  }

  void accumulatorAveragesOverTraces() {
    const Mat self = Mat::Identity(4, 4);
    Mat previous = Mat::Zero(4, 4);
    previous(0, 0) = 1;
    for (int i = 1; i < 4; ++i) previous(i, i - 1) = 1;
    SimilarityAccumulator acc;
    QVERIFY(acc.similarity().empty());
    acc.add(handTrace({self, self}));      // 3 rows, similarity 1
    acc.add(handTrace({self, previous}));  // 3 rows, similarity 0
    QCOMPARE(acc.rowsCompared(), 6LL);
    QVERIFY(std::abs(acc.similarity()[0][1] - 0.5) < 1e-6);
    acc.add(handTrace({self, self}), -1, 1);  // one sampled row
    QCOMPARE(acc.rowsCompared(), 7LL);
    QVERIFY_THROWS_EXCEPTION(InputError, acc.add(handTrace({self})));
  }

  void mdsReproducesThreeDistances() {
    // A 3-4-5 right triangle scaled by 0.1: distances 0.3, 0.4, 0.5, so similarities 0.7, 0.6, 0.5.
    const SimilarityMatrix s = {{1.0, 0.7, 0.6}, {0.7, 1.0, 0.5}, {0.6, 0.5, 1.0}};
    const auto xy = map2d(s);
    const auto dist = [&](int a, int b) {
      return std::hypot(xy[static_cast<std::size_t>(a)][0] - xy[static_cast<std::size_t>(b)][0],
                        xy[static_cast<std::size_t>(a)][1] - xy[static_cast<std::size_t>(b)][1]);
    };
    QVERIFY(std::abs(dist(0, 1) - 0.3) < 1e-12);
    QVERIFY(std::abs(dist(0, 2) - 0.4) < 1e-12);
    QVERIFY(std::abs(dist(1, 2) - 0.5) < 1e-12);
    QCOMPARE(clusterOrder(s), (std::vector<int>{0, 1, 2}));
  }

  void probeAtlasHasTheMap() {
    const auto tiny = loadShippedModel(kShippedInductionModel);
    const HeadAtlas atlas = buildProbeAtlas(*tiny, {8, 1});
    const auto n = static_cast<std::size_t>(atlas.layers * atlas.heads);
    QCOMPARE(atlas.similarity.size(), n);
    QCOMPARE(atlas.map2d.size(), n);
    std::vector<int> order = atlas.clusterOrder;
    std::sort(order.begin(), order.end());
    for (std::size_t i = 0; i < n; ++i) QCOMPARE(order[i], static_cast<int>(i));
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestHeadSimilarity)
#include "test_head_similarity.moc"
