// The pooled pyramid of an attention map (core/compute/map_pyramid.h): a 3 × 5 map by hand, every level's
// max and mean against the map's cells directly (odd sizes, both orientations, one and several threads),
// a producer giving row blocks equal to the map in memory (also on 2 threads, told which columns are 0), the byte
// budget (level 0 left out, value() and readWindow still exact through the producer), the level chosen for a zoom, and
// empty maps.
#include <QtTest>

#include <omp.h>

#include "core/base/rng.h"
#include "core/compute/map_pyramid.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

Mat uniform(int rows, int cols, uint64_t seed) {
  Rng rng(seed);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform());
  return m;
}

MapPyramid::Options allLevels(std::size_t budget = MapPyramid::kDefaultBudgetBytes) {
  MapPyramid::Options o;
  o.coarsestSide = 1;
  o.level0BudgetBytes = budget;
  return o;
}

/// Every cell of every pooled level against the max and mean of the map block it covers, in double.
void checkAgainstBruteForce(const MapPyramid& p, const Mat& m) {
  for (int k = 1; k < p.levelCount(); ++k) {
    const MapLevel& mx = p.level(k, Pooling::Max);
    const MapLevel& mean = p.level(k, Pooling::Mean);
    QCOMPARE(mx.rows(), Eigen::Index{(m.rows() + (1 << k) - 1) >> k});
    QCOMPARE(mx.cols(), Eigen::Index{(m.cols() + (1 << k) - 1) >> k});
    for (int i = 0; i < mx.rows(); ++i)
      for (int j = 0; j < mx.cols(); ++j) {
        const int r0 = i << k, c0 = j << k;
        const int nr = std::min<int>(1 << k, static_cast<int>(m.rows()) - r0);
        const int nc = std::min<int>(1 << k, static_cast<int>(m.cols()) - c0);
        const auto cells = m.block(r0, c0, nr, nc).cast<double>();
        QCOMPARE(mx(i, j), static_cast<float>(cells.maxCoeff()));
        QVERIFY2(std::abs(mean(i, j) - cells.mean()) <= 1e-6 * std::max(1.0, std::abs(cells.mean())),
                 qPrintable(
                     QString("level %1 cell %2,%3: %4 vs %5").arg(k).arg(i).arg(j).arg(mean(i, j)).arg(cells.mean())));
      }
  }
}

}  // namespace

class TestMapPyramid : public QObject {
  Q_OBJECT
 private slots:
  void threeByFiveByHand() {
    Mat m(3, 5);
    m << 1, 2, 3, 4, 5,  //
        6, 7, 8, 9, 10,  //
        11, 12, 13, 14, 15;
    MapPyramid p;
    p.build(m, allLevels());
    // 3 × 5 → 2 × 3 → 1 × 2 → 1 × 1.
    QCOMPARE(p.levelCount(), 4);
    QVERIFY(p.hasLevel(0));
    MapLevel max1(2, 3), mean1(2, 3);
    max1 << 7, 9, 10, 12, 14, 15;
    mean1 << 4, 6, 7.5, 11.5, 13.5, 15;  // (1+2+6+7)/4, (3+4+8+9)/4, (5+10)/2; (11+12)/2, (13+14)/2, 15
    QCOMPARE(p.level(1, Pooling::Max), max1);
    QCOMPARE(p.level(1, Pooling::Mean), mean1);
    MapLevel max2(1, 2), mean2(1, 2);
    max2 << 14, 15;
    mean2 << 7.5, 10;  // rows 0–2 × cols 0–3: 90/12; col 4: (5+10+15)/3 — weighted by cells, not 4 means
    QCOMPARE(p.level(2, Pooling::Max), max2);
    QCOMPARE(p.level(2, Pooling::Mean), mean2);
    QCOMPARE(p.level(3, Pooling::Max)(0, 0), 15.0f);
    QCOMPARE(p.level(3, Pooling::Mean)(0, 0), 8.0f);
    QCOMPARE(p.maxValue(), 15.0f);
    QCOMPARE(p.value(2, 4), 15.0f);
  }

  void everyLevelAgainstBruteForce_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("threads");
    QTest::newRow("1x1") << 1 << 1 << 1;
    QTest::newRow("7x1") << 7 << 1 << 1;
    QTest::newRow("odd 129x67") << 129 << 67 << 1;
    QTest::newRow("odd 67x129, 2 threads") << 67 << 129 << 2;
    QTest::newRow("several blocks 301x300, 2 threads") << 301 << 300 << 2;
  }
  void everyLevelAgainstBruteForce() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, threads);
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    const Mat m = uniform(rows, cols, 7);
    MapPyramid p;
    p.build(m, allLevels());
    omp_set_num_threads(saved);
    QCOMPARE(p.levelCount(), 1 + static_cast<int>(std::ceil(std::log2(std::max(rows, cols)))));
    QCOMPARE(p.level(p.levelCount() - 1, Pooling::Max).size(), Eigen::Index{1});
    checkAgainstBruteForce(p, m);
    QCOMPARE(p.maxValue(), m.maxCoeff());
  }

  void producerEqualsMatAndStopsAtCoarsestSide() {
    const Mat m = uniform(200, 150, 3);
    int calls = 0, largest = 0, nextRow = 0;
    bool inOrder = true;
    MapPyramid fromProducer, fromMat;
    fromProducer.build(200, 150, [&](int first, int n, Mat& block) {
      ++calls;
      largest = std::max(largest, n);
      inOrder = inOrder && first == nextRow;
      nextRow = first + n;
      block = m.middleRows(first, n);
    });
    fromMat.build(m);
    QCOMPARE(calls, 4);  // 64-row blocks, never the whole map at once
    QCOMPARE(largest, MapPyramid::kBlockRows);
    QVERIFY(inOrder);
    // 200 × 150 → 100 × 75 → 50 × 38: the first level ≤ 64 on its long side is the last.
    QCOMPARE(fromMat.levelCount(), 3);
    QCOMPARE(fromMat.levelRows(2), 50);
    QCOMPARE(fromMat.levelCols(2), 38);
    QCOMPARE(fromProducer.levelCount(), fromMat.levelCount());
    for (int k = 0; k < fromMat.levelCount(); ++k)
      for (Pooling pool : {Pooling::Max, Pooling::Mean}) QCOMPARE(fromProducer.level(k, pool), fromMat.level(k, pool));
    checkAgainstBruteForce(fromMat, m);
  }

  void concurrentProducerWithZeroColumnsEqualsSerial_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("window");  // 0: causal only
    QTest::newRow("causal 301") << 301 << 0;
    QTest::newRow("causal 256") << 256 << 0;
    QTest::newRow("window 37 over 301") << 301 << 37;
  }
  void concurrentProducerWithZeroColumnsEqualsSerial() {
    // A causal (banded) map built on 2 threads, told which columns can be non-zero, equals the serial build that
    // reads every cell; blocks reach the producer out of order, each once.
    QFETCH(int, n);
    QFETCH(int, window);
    Mat m = uniform(n, n, 5);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (j > i || (window > 0 && j <= i - window)) m(i, j) = 0.0f;
    const int saved = omp_get_max_threads();
    omp_set_num_threads(2);
    std::vector<int> calls(static_cast<std::size_t>((n + MapPyramid::kBlockRows - 1) / MapPyramid::kBlockRows), 0);
    MapPyramid::Options o = allLevels();
    o.concurrentProducer = true;
    o.nonZeroColumns = [window](int first, int count, int& c0, int& c1) {
      c0 = window > 0 ? std::max(0, first - window + 1) : 0;
      c1 = first + count;
    };
    MapPyramid concurrent, serial;
    concurrent.build(
        n, n,
        [&](int first, int count, Mat& block) {
#pragma omp atomic
          ++calls[static_cast<std::size_t>(first / MapPyramid::kBlockRows)];
          block = m.middleRows(first, count);
        },
        o);
    omp_set_num_threads(saved);
    serial.build(m, allLevels());
    for (int c : calls) QCOMPARE(c, 1);
    QCOMPARE(concurrent.levelCount(), serial.levelCount());
    for (int k = 0; k < serial.levelCount(); ++k)
      for (Pooling pool : {Pooling::Max, Pooling::Mean}) QCOMPARE(concurrent.level(k, pool), serial.level(k, pool));
    checkAgainstBruteForce(concurrent, m);
  }

  void budgetLeavesLevelZeroOutButValuesStayExact() {
    const Mat m = uniform(130, 90, 11);
    int producerRows = 0;
    MapPyramid p;
    const std::size_t budget = 130 * 90 * sizeof(float) - 1;  // one byte short of the map
    p.build(
        130, 90,
        [&](int first, int n, Mat& block) {
          producerRows += n;
          block = m.middleRows(first, n);
        },
        allLevels(budget));
    QVERIFY(!p.hasLevel(0));
    QVERIFY(p.hasLevel(1));
    QVERIFY(p.bytes() < static_cast<std::size_t>(m.size()) * sizeof(float));
    checkAgainstBruteForce(p, m);
    producerRows = 0;
    for (int c = 0; c < 90; ++c) QCOMPARE(p.value(77, c), m(77, c));
    QCOMPARE(producerRows, 1);  // one row read, then cached for the hover's next cells
    QCOMPARE(p.value(129, 89), m(129, 89));
    QCOMPARE(p.value(0, 0), m(0, 0));
    MapLevel window;
    p.readWindow(60, 70, 5, 31, window);
    QCOMPARE(window, MapLevel(m.block(60, 5, 70, 31)));

    MapPyramid kept;
    kept.build(m, allLevels(130 * 90 * sizeof(float)));  // exactly fits
    QVERIFY(kept.hasLevel(0));
    QCOMPARE(kept.level(0, Pooling::Mean), MapLevel(m));
  }

  void levelForZoom() {
    MapPyramid p;
    p.build(Mat::Zero(1000, 1000), allLevels());  // levels 0 … 10
    QCOMPARE(p.levelCount(), 11);
    QCOMPARE(p.levelFor(3.0), 0);    // zoomed in: full resolution
    QCOMPARE(p.levelFor(1.0), 0);    // one pixel per cell
    QCOMPARE(p.levelFor(0.6), 0);    // level 1's cells would be 1.2 px
    QCOMPARE(p.levelFor(0.5), 1);    // 2 cells per pixel: level 1's cells are exactly 1 px
    QCOMPARE(p.levelFor(0.3), 1);    // level 1: 0.6 px, level 2: 1.2 px
    QCOMPARE(p.levelFor(0.125), 3);  // 8 cells per pixel
    QCOMPARE(p.levelFor(1e-9), 10);  // clamped to the coarsest level
  }

  void emptyMap() {
    MapPyramid p;
    p.build(0, 10, [](int, int, Mat&) { QFAIL("no rows to produce"); });
    QVERIFY(p.empty());
    QCOMPARE(p.levelCount(), 0);
    QCOMPARE(p.levelFor(0.1), 0);
    QCOMPARE(p.bytes(), std::size_t{0});
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestMapPyramid)
#include "test_map_pyramid.moc"
