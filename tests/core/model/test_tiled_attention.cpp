// Long inputs without n² maps (issue 18): a head attended in tiles (attendHeadTiled) gives the output of the
// explicit head (attendHead) to float rounding, for causal, bidirectional, sliding-window and soft-capped heads and
// for lengths around the tile size; its summary (entropy, sink share, previous-token, distance, pooled thumbnails)
// equals the one read off the explicit map, and that one equals a brute-force computation written here from the
// definitions in head_summary.h; a recomputed map (head_maps.h) and its pyramid (head_pyramid.h) equal the stored
// one's; the map cache keeps its budget, hands out stored maps without copying and refuses a map larger than the
// budget, naming its size.
#include <QtTest>

#include <cmath>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/model/attention_head.h"
#include "core/model/head_maps.h"
#include "core/model/head_pyramid.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

Mat randomMat(int rows, int cols, Rng& rng, double sd) {
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(sd * rng.normal());
  return m;
}

struct Case {
  int n;
  HeadOptions o;
};

HeadOptions options(bool causal, int window, float softcap) {
  HeadOptions o;
  o.scale = 0.125f;
  o.causal = causal;
  o.window = window;
  o.softcap = softcap;
  return o;
}

/// head_summary.h's definitions, in double, straight from a map [n, n].
HeadSummary bruteForce(const Mat& a) {
  // Cells of c tokens a side, c the smallest power of two with ⌈n/c⌉ ≤ 64.
  const int n = static_cast<int>(a.rows());
  int c = 1;
  while ((n + c - 1) / c > kThumbnailSize) c *= 2;
  const int t = (n + c - 1) / c;
  HeadSummary s;
  s.tokens = n;
  s.thumbMean = Mat::Zero(t, t);
  s.thumbMax = Mat::Zero(t, t);
  const auto start = [&](int cell) { return std::min(n, cell * c); };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double w = a(i, j);
      if (w > 0) s.entropy -= w * std::log(w);
      s.meanDistance += w * std::abs(i - j);
      s.maxWeight = std::max(s.maxWeight, a(i, j));
    }
    s.sinkShare += a(i, 0);
    if (i > 0) s.previousToken += a(i, i - 1);
  }
  s.entropy /= n;
  s.sinkShare /= n;
  s.meanDistance /= n;
  s.previousToken = n > 1 ? s.previousToken / (n - 1) : 0;
  for (int c = 0; c < t; ++c)
    for (int d = 0; d < t; ++d) {
      const auto block = a.block(start(c), start(d), start(c + 1) - start(c), start(d + 1) - start(d));
      s.thumbMean(c, d) = block.cast<double>().mean();
      s.thumbMax(c, d) = block.maxCoeff();
    }
  return s;
}

void compareSummaries(const HeadSummary& got, const HeadSummary& want) {
  QCOMPARE(got.tokens, want.tokens);
  QVERIFY2(std::abs(got.entropy - want.entropy) <= 1e-4 * std::max(1.0, want.entropy),
           qPrintable(QString("entropy %1 vs %2").arg(got.entropy).arg(want.entropy)));
  QVERIFY(std::abs(got.sinkShare - want.sinkShare) <= 1e-5);
  QVERIFY(std::abs(got.previousToken - want.previousToken) <= 1e-5);
  QVERIFY2(std::abs(got.meanDistance - want.meanDistance) <= 1e-4 * std::max(1.0, want.meanDistance),
           qPrintable(QString("distance %1 vs %2").arg(got.meanDistance).arg(want.meanDistance)));
  QVERIFY(std::abs(got.maxWeight - want.maxWeight) <= 1e-5);
  ATTNLAB_COMPARE_MATRICES(got.thumbMean, want.thumbMean, 1e-5);
  ATTNLAB_COMPARE_MATRICES(got.thumbMax, want.thumbMax, 1e-5);
}

}  // namespace

class TestTiledAttention : public QObject {
  Q_OBJECT
 private slots:
  void tiledEqualsExplicit_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<int>("window");
    QTest::addColumn<float>("softcap");
    for (int n : {1, 2, 63, 64, 65, 200, 300}) {
      QTest::addRow("causal n=%d", n) << n << true << 0 << 0.0f;
      QTest::addRow("bidirectional n=%d", n) << n << false << 0 << 0.0f;
      QTest::addRow("window 5 n=%d", n) << n << true << 5 << 0.0f;
      QTest::addRow("softcap n=%d", n) << n << true << 0 << 2.0f;
    }
    QTest::addRow("window 100 spans tiles") << 300 << true << 100 << 0.0f;
    QTest::addRow("bidirectional window") << 150 << false << 7 << 0.0f;
  }
  void tiledEqualsExplicit() {
    QFETCH(int, n);
    QFETCH(bool, causal);
    QFETCH(int, window);
    QFETCH(float, softcap);
    Rng rng(7 + static_cast<unsigned>(n));
    const Mat q = randomMat(n, 16, rng, 3.0), k = randomMat(n, 16, rng, 3.0), v = randomMat(n, 16, rng, 1.0);
    const HeadOptions o = options(causal, window, softcap);
    Mat fullOut(n, 16), tiledOut(n, 16);
    const HeadTrace full = attendHead(q, shareMat(k), shareMat(v), o, fullOut);
    const HeadTrace tiled = attendHeadTiled(q, shareMat(k), shareMat(v), o, tiledOut);
    QVERIFY(full.keepsMaps());
    QVERIFY(!tiled.keepsMaps());
    QCOMPARE(tiled.attention.size(), Eigen::Index(0));
    ATTNLAB_COMPARE_MATRICES(tiledOut, fullOut, 1e-5);
    const HeadSummary fromMap = summarizeMap(full.attention);
    compareSummaries(fromMap, bruteForce(full.attention));
    compareSummaries(tiled.summary, fromMap);
    // Recomputed on demand: the very numbers a short input keeps.
    ATTNLAB_COMPARE_MATRICES(headAttention(tiled), full.attention, 1e-6);
    ATTNLAB_COMPARE_MATRICES(headScores(tiled), full.scores, 1e-6);
    // An edit's known rows (prefix_reuse.h): tiles wholly before row p keep them (zeros here, to see which were
    // kept), the rest is made as before, and the summary still reads every row.
    const Eigen::Index p = std::min<Eigen::Index>(n - 1, n / 2 + 3), copied = p / kTileRows * kTileRows;
    Mat editedOut = Mat::Zero(n, 16);
    const HeadTrace edited = attendHeadTiled(q, shareMat(k), shareMat(v), o, editedOut, p);
    QVERIFY(editedOut.topRows(copied).isZero(0.0f));
    QVERIFY(editedOut.bottomRows(n - copied) == tiledOut.bottomRows(n - copied));
    compareSummaries(edited.summary, tiled.summary);
    if (causal) {
      // The same edit given the last pass's summary: inputs changed from row p on, the row bands before p taken from
      // the last pass and the rest made again give the changed inputs' full tiled pass, output and summary, bit for bit
      // (a causal head's rows before p see only keys before p).
      Mat q2 = q, k2 = k, v2 = v;
      q2.bottomRows(n - p).array() += 0.25f;
      k2.bottomRows(n - p).array() -= 0.5f;
      v2.bottomRows(n - p).array() *= 2.0f;
      Mat out2(n, 16), resumedOut2(n, 16);
      const HeadTrace full2 = attendHeadTiled(q2, shareMat(k2), shareMat(v2), o, out2);
      resumedOut2.topRows(p) = out2.topRows(p);  // the known rows, as attendGroupedHeads copies them from the last pass
      resumedOut2.bottomRows(n - p).setZero();
      const HeadTrace resumed = attendHeadTiled(q2, shareMat(k2), shareMat(v2), o, resumedOut2, p, &tiled.summary);
      QVERIFY(resumedOut2 == out2);
      const HeadSummary &got = resumed.summary, &want = full2.summary;
      QCOMPARE(got.entropy, want.entropy);
      QCOMPARE(got.sinkShare, want.sinkShare);
      QCOMPARE(got.previousToken, want.previousToken);
      QCOMPARE(got.meanDistance, want.meanDistance);
      QCOMPARE(got.maxWeight, want.maxWeight);
      QVERIFY(got.thumbMean == want.thumbMean);
      QVERIFY(got.thumbMax == want.thumbMax);
      QVERIFY(got.bandSums == want.bandSums);
      if (n > 1) QVERIFY(std::abs(got.entropy - tiled.summary.entropy) > 0.0);  // the changed rows did count
      // A summary of another length is not taken: every row made again.
      HeadSummary shorter = tiled.summary;
      shorter.tokens = n + 1;
      const HeadTrace fresh = attendHeadTiled(q2, shareMat(k2), shareMat(v2), o, resumedOut2, p, &shorter);
      QCOMPARE(fresh.summary.entropy, want.entropy);
      // A text grown at the end (issue 31): the pass of its first m rows, then the rows from m on given that pass's
      // summary (its last, partial band filled on by the new rows; when the length crossed a power of two of cells,
      // m ≤ 64·2ᵏ < n, the earlier cells pooled 2 × 2 into the larger ones) equal the whole text's tiled pass to float
      // rounding (the first new rows are attended in a tile of their own); the rows before m are the short pass's.
      for (const int m : {n - 1, n / 2 + 1, n - 37}) {
        if (m < 1 || m >= n) continue;
        Mat shortOut(m, 16);
        const HeadTrace shortPass =
            attendHeadTiled(q.topRows(m), shareMat(k.topRows(m)), shareMat(v.topRows(m)), o, shortOut);
        Mat grownOut(n, 16);
        grownOut.topRows(m) = shortOut;
        grownOut.bottomRows(n - m).setZero();
        const HeadTrace grown = attendHeadTiled(q, shareMat(k), shareMat(v), o, grownOut, m, &shortPass.summary);
        ATTNLAB_COMPARE_MATRICES(grownOut, tiledOut, 1e-5);
        QVERIFY(grownOut.topRows(m) == shortOut);
        compareSummaries(grown.summary, tiled.summary);
        compareSummaries(grown.summary, bruteForce(full.attention));
        QCOMPARE(grown.summary.cellTokens, thumbnailCellTokens(n));
      }
    }
    Mat rows;
    const Eigen::Index first = n / 3, count = std::max<Eigen::Index>(1, n / 2);
    headAttentionRows(tiled, first, count, rows);
    ATTNLAB_COMPARE_MATRICES(rows, full.attention.middleRows(first, count), 1e-6);
    // Q·Kᵀ through the packed kernel (Kᵀ packed once, as the heatmap's pyramid does): the same rows.
    const PackedMatrix keysT = packedKeys(tiled);
    Mat packedRows;
    headAttentionRows(tiled, first, count, packedRows, &keysT);
    ATTNLAB_COMPARE_MATRICES(packedRows, rows, 1e-6);
    // The kernel writes whole 12-column panels: the columns past the block's last visible key must still be 0.
    if (causal) QVERIFY(packedRows.rightCols(n - std::min<Eigen::Index>(n, first + count)).isZero(0.0f));
    // The heatmap's pyramid from row blocks on 2 threads, skipping the keys no query of a block sees, equals the
    // pyramid of the whole map; full-resolution reads go through the same rows.
    MapPyramid::Options all;
    all.coarsestSide = 1;
    all.level0BudgetBytes = 0;  // level 0 through the producer, as at 8,192 tokens
    const std::shared_ptr<MapPyramid> recomputed = headPyramid(tiled, nullptr, all);
    MapPyramid whole;
    whole.build(full.attention, all);
    QCOMPARE(recomputed->levelCount(), whole.levelCount());
    for (int k = 1; k < whole.levelCount(); ++k)
      for (Pooling pool : {Pooling::Max, Pooling::Mean}) {
        const Mat got = recomputed->level(k, pool), want = whole.level(k, pool);
        ATTNLAB_COMPARE_MATRICES(got, want, 1e-6);
      }
    QVERIFY(std::abs(recomputed->value(n - 1, 0) - full.attention(n - 1, 0)) < 1e-6);
  }

  void handSummary() {
    // Causal 3 × 3: rows [1], [.5 .5], [.2 .3 .5].
    Mat a(3, 3);
    a << 1, 0, 0, .5f, .5f, 0, .2f, .3f, .5f;
    const HeadSummary s = summarizeMap(a);
    QVERIFY(std::abs(s.entropy - (std::log(2.0) - (.2 * std::log(.2) + .3 * std::log(.3) + .5 * std::log(.5))) / 3) <
            1e-6);
    QVERIFY(std::abs(s.sinkShare - (1 + .5 + .2) / 3) < 1e-6);
    QVERIFY(std::abs(s.previousToken - (.5 + .3) / 2) < 1e-6);
    QVERIFY(std::abs(s.meanDistance - (0 + .5 + (.2 * 2 + .3)) / 3) < 1e-6);
    QCOMPARE(s.thumbMax.rows(), 3);  // three tokens: one cell each, the map itself
    ATTNLAB_COMPARE_MATRICES(s.thumbMax, a, 1e-7);
  }

  void cacheKeepsBudgetAndSharesStoredMaps() {
    Rng rng(3);
    const int n = 100;
    Trace t;
    t.layers.resize(1);
    Mat out(n, 8);
    for (int h = 0; h < 3; ++h)
      t.layers[0].heads.push_back(attendHeadTiled(randomMat(n, 8, rng, 1), shareMat(randomMat(n, 8, rng, 1)),
                                                  shareMat(randomMat(n, 8, rng, 1)), options(true, 0, 0), out));
    t.layers[0].heads.push_back(attendHead(randomMat(n, 8, rng, 1), shareMat(randomMat(n, 8, rng, 1)),
                                           shareMat(randomMat(n, 8, rng, 1)), options(true, 0, 0), out));
    const double mapBytes = n * n * 4.0;
    HeadMapCache cache(2.5 * mapBytes);  // room for two recomputed maps
    const auto stored = cache.attention(t, 0, 3);
    QCOMPARE(stored.get(), &t.layers[0].heads[3].attention);  // no copy
    QCOMPARE(cache.bytes(), 0.0);
    const auto a0 = cache.attention(t, 0, 0);
    QCOMPARE(cache.attention(t, 0, 0).get(), a0.get());  // cached
    cache.attention(t, 0, 1);
    cache.attention(t, 0, 2);  // evicts head 0, the least recently used
    QCOMPARE(cache.bytes(), 2 * mapBytes);
    QVERIFY(cache.attention(t, 0, 0).get() != a0.get());
    ATTNLAB_COMPARE_MATRICES(*a0, headAttention(t.layers[0].heads[0]), 0);  // still valid after eviction
    HeadMapCache tiny(0.5 * mapBytes);
    try {
      tiny.attention(t, 0, 0);
      QFAIL("a map over the budget was made");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("100 tokens"), e.what());
    }
  }

  void planKeepsShortInputsOnly() {
    QVERIFY(planMapKeeping(MapKeeping::Auto, 300, 12, 12));   // 2·144·300²·4 B = 104 MB
    QVERIFY(!planMapKeeping(MapKeeping::Auto, 400, 12, 12));  // 184 MB
    QVERIFY(!planMapKeeping(MapKeeping::Never, 2, 1, 1));
    QVERIFY(planMapKeeping(MapKeeping::Always, 1000, 12, 12));  // 1.1 GB, under the trace budget
    QVERIFY_THROWS_EXCEPTION(InputError, planMapKeeping(MapKeeping::Always, 4000, 12, 12));
    QVERIFY(!planMapKeeping(MapKeeping::Auto, 100000, 30, 9));  // no maps: no trace-budget refusal
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTiledAttention)
#include "test_tiled_attention.moc"
