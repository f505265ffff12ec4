// The spectra views (issue 4) on real results: their analyses arrive from BackgroundJobs, clicks
// and controls turn into selection / parameter requests, large inputs wait for "Compute".
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>
#include <atomic>

#include "core/compute/lapack_spectrum.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/spectrum_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/view_factory.h"
#include "ui/views/common/background_job.h"
#include "ui/views/spectra/rank_demo_view.h"
#include "ui/views/spectra/rank_table_view.h"
#include "ui/views/spectra/spectrum_view.h"
#include "ui/views/variants/feature_map_view.h"
#include "ui/views/variants/head_size_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

Params smallParams() {
  Params p;
  p.sentence = "mary gave roses to susan because she loved the flowers in the garden";
  p.model.dModel = 32;
  p.model.heads = 4;
  p.model.layers = 2;
  p.selection.layer = 1;
  p.selection.head = 2;
  return p;
}

/// One layer over `words` words "w0 w1 … w49 w0 …": a long input for the on-demand limits.
Params longParams(int words) {
  Params p = smallParams();
  p.model.layers = 1;
  p.sentence.clear();
  for (int i = 0; i < words; ++i) p.sentence += "w" + std::to_string(i % 50) + " ";
  return p;
}

ResultPtr run(const Params& p) {
  ResultPtr r = LiveController::compute(p, nullptr, {});
  if (!r->ok()) qWarning() << r->error;
  return r;
}

template <typename V>
void showSized(V& v) {
  v.resize(1000, 700);
  v.setAttribute(Qt::WA_DontShowOnScreen);
  v.show();
}

}  // namespace

class TestSpectraViews : public QObject {
  Q_OBJECT
 private slots:
  void registeredInFactory_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"spectrum", "rank-table", "rank-demo", "feature-maps", "head-size"}) QTest::newRow(n) << n;
  }
  void registeredInFactory() {
    QFETCH(QString, name);
    QVERIFY(viewNames().contains(name));
    std::unique_ptr<TraceView> v(createView(name));
    QVERIFY(v);
    QCOMPARE(v->viewName(), name);
    QVERIFY(!v->displayName().isEmpty());
  }

  void spectrumViewShowsRanksAndEigenvalues() {
    SpectrumView v;
    showSized(v);
    const ResultPtr r = run(smallParams());
    QVERIFY(r->ok());
    v.showResult(r);
    QTRY_VERIFY_WITH_TIMEOUT(v.eigenvaluesShown() && v.spectrum().n > 0, 20000);
    const int n = r->trace().tokenCount(), d = 32 / 4;
    QCOMPARE(v.spectrum().n, n);
    QCOMPARE(v.spectrum().dHead, d);
    QVERIFY(v.spectrum().scores.numericalRank <= d);
    QVERIFY(v.spectrum().expScores.numericalRank > d);  // exp lifts the rank above d_head
    QCOMPARE(int(v.spectrum().attention.eigenvalues.size()), n);
    QVERIFY(std::abs(spectralRadius(v.spectrum().attention.eigenvalues) - 1.0) <= 1e-12);
    QVERIFY(v.infoText().contains("numerical rank"));
  }

  void supersededRunMovesNoProgressBar() {
    // The first run is still busy (as inside a LAPACK call) when a second one starts; its late progress
    // must not reach the view, whose bar now belongs to the second run.
    BackgroundJob job;
    QSignalSpy progress(&job, &BackgroundJob::progress);
    std::atomic<bool> started{false}, release{false};
    job.run<int>(
        [&](const RunControl& c) {
          started = true;
          while (!release) QThread::msleep(1);
          c.progress(0.5);
          return 1;
        },
        [](const int&) {});
    QTRY_VERIFY(started.load());
    int newest = 0;
    job.run<int>(
        [](const RunControl& c) {
          c.progress(0.25);
          return 2;
        },
        [&newest](const int& v) { newest = v; });
    release = true;
    QTRY_COMPARE(newest, 2);
    QTest::qWait(50);  // anything still queued arrives
    QCOMPARE(progress.count(), 1);
    QCOMPARE(progress[0][0].toDouble(), 0.25);
  }

  void eigenvaluePlotKeepsEveryEigenvalueAndTheCircleInView() {
    // A tall, narrow plot (as beside the singular values) and a wide one: equal scales, the whole unit
    // circle, and every point drawn — hundreds clustered at 0 must not thin out the isolated ones.
    std::vector<std::complex<double>> ev{{1, 0}, {-0.26, 0.05}, {-0.26, -0.05}, {0.11, 0}};
    for (int i = 0; i < 400; ++i) ev.emplace_back(1e-3 * std::cos(i), 1e-3 * std::sin(i));
    for (QSize size : {QSize(300, 700), QSize(800, 300)}) {
      EigenvaluePlot plot;
      plot.resize(size);
      plot.show();
      QVERIFY(QTest::qWaitForWindowExposed(&plot));
      plot.setEigenvalues(ev);
      plot.replot();
      const QCPRange x = plot.xAxis->range(), y = plot.yAxis->range();
      QVERIFY(x.lower <= -1.0 && x.upper >= 1.0 && y.lower <= -1.0 && y.upper >= 1.0);
      const double xScale = plot.axisRect()->width() / x.size(), yScale = plot.axisRect()->height() / y.size();
      QVERIFY2(std::abs(xScale / yScale - 1.0) < 0.02, qPrintable(QString("%1 vs %2").arg(xScale).arg(yScale)));
      QCPGraph* points = plot.graph(0);
      QVERIFY(points && !points->adaptiveSampling());
      QCOMPARE(points->dataCount(), int(ev.size()));
    }
  }

  void spectrumOnDemandForLongInputs() {
    const Params p = longParams(SpectrumView::kOnDemandTokens + 10);
    SpectrumView v;
    showSized(v);
    const ResultPtr r = run(p);
    QVERIFY(r->ok());
    v.showResult(r);
    QTest::qWait(100);
    QCOMPARE(v.spectrum().n, 0);  // nothing computed until asked
    QPushButton* button = v.findChild<QPushButton*>("computeSpectrum");
    QVERIFY(button && button->isVisible());
    QVERIFY(button->text().contains("Compute"));
    if (!lapackAvailable()) return;  // then the eigenvalues have a button of their own
    // One press computes the whole spectrum, eigenvalues included (their progress steps: test_lapack_spectrum).
    button->click();
    QTRY_VERIFY_WITH_TIMEOUT(v.eigenvaluesShown() && v.spectrum().n == r->trace().tokenCount(), 120000);
    QCOMPARE(int(v.spectrum().attention.eigenvalues.size()), r->trace().tokenCount());
    QVERIFY(std::abs(spectralRadius(v.spectrum().attention.eigenvalues) - 1.0) <= 1e-12);
    QVERIFY(!button->isVisible());
    QVERIFY(!v.findChild<QPushButton*>("computeEigenvalues")->isVisible());
  }

  void eigenvaluesComeByThemselvesAboveTheFallbackLimit() {
    // With LAPACK, 400 tokens (above the no-LAPACK limit of 384) get their eigenvalues without a button.
    if (!lapackAvailable()) QSKIP("a build without LAPACK");
    const Params p = longParams(SpectrumView::kEigenFallbackTokens + 16);
    SpectrumView v;
    showSized(v);
    const ResultPtr r = run(p);
    v.showResult(r);
    QTRY_VERIFY_WITH_TIMEOUT(v.eigenvaluesShown() && v.spectrum().n > 0, 60000);
    QCOMPARE(int(v.spectrum().attention.eigenvalues.size()), r->trace().tokenCount());
    QVERIFY(std::abs(spectralRadius(v.spectrum().attention.eigenvalues) - 1.0) <= 1e-12);
    QPushButton* button = v.findChild<QPushButton*>("computeEigenvalues");
    QVERIFY(button && !button->isVisible());
  }

  void eigenvaluesOnDemandAboveAutoLimit() {
    // Only a build without LAPACK has a range where the singular values come alone.
    if (lapackAvailable()) QSKIP("with LAPACK the eigenvalues come with the singular values");
    const Params p = longParams(SpectrumView::autoEigenTokens() + 16);
    SpectrumView v;
    showSized(v);
    v.showResult(run(p));
    QTRY_VERIFY_WITH_TIMEOUT(v.spectrum().n > 0, 60000);  // singular values come by themselves
    QVERIFY(!v.eigenvaluesShown());
    QPushButton* button = v.findChild<QPushButton*>("computeEigenvalues");
    QVERIFY(button && button->isVisible());
  }

  void rankTableFillsAndClicksSelect() {
    RankTableView v;
    showSized(v);
    const ResultPtr r = run(smallParams());
    v.showResult(r);
    QTRY_COMPARE_WITH_TIMEOUT(int(v.grid()->table().cells.size()), 2, 20000);
    QCOMPARE(int(v.grid()->table().cells[0].size()), 4);
    QSignalSpy spy(&v, &TraceView::selectionRequested);
    QTest::mouseClick(v.grid(), Qt::LeftButton, {}, v.grid()->cellRect(1, 3).center());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy[0][0].toInt(), 1);
    QCOMPARE(spy[0][1].toInt(), 3);
  }

  void rankTableHasAColourBarAndAWholeTitle_data() {
    QTest::addColumn<double>("fontScale");
    QTest::addColumn<int>("width");
    QTest::newRow("normal") << 1.0 << 1000;
    QTest::newRow("presentation, half a screen") << 2.0 << 560;
  }
  void rankTableHasAColourBarAndAWholeTitle() {
    QFETCH(double, fontScale);
    QFETCH(int, width);
    RankTableView v;
    v.setFontScale(fontScale);
    showSized(v);
    v.resize(width, 700);
    v.showResult(run(smallParams()));
    QTRY_COMPARE_WITH_TIMEOUT(int(v.grid()->table().cells.size()), 2, 20000);
    QApplication::processEvents();
    RankColorBar* bar = v.colorBar();
    QVERIFY(bar->isVisible());
    QVERIFY(bar->height() > 0 && bar->width() > 100);
    const std::vector<double> ticks = bar->ticks();  // 0 … n, n = the sentence's 13 tokens
    QCOMPARE(ticks.front(), 0.0);
    QCOMPARE(ticks.back(), 13.0);
    QVERIFY(ticks.size() >= 3);
    // The gradient is drawn: the bar's pixels run from dark (viridis 0) to light (viridis 1).
    const QImage img = bar->grab().toImage();
    int darkest = 255, lightest = 0;
    for (int x = 0; x < img.width(); ++x) {
      const int l = QColor(img.pixel(x, bar->height() / 5 + 1)).lightness();
      darkest = std::min(darkest, l);
      lightest = std::max(lightest, l);
    }
    QVERIFY2(lightest - darkest > 80, qPrintable(QString("%1 … %2").arg(darkest).arg(lightest)));
    // The title is whole: laid out in its width, its wrapped text fits the label's height.
    QLabel* title = v.titleLabel();
    QVERIFY(title->text().contains("effective rank"));
    const QRect room = title->contentsRect();
    const QRect need =
        QFontMetrics(title->font()).boundingRect(room, Qt::TextWordWrap | Qt::AlignCenter, title->text());
    QVERIFY2(need.width() <= room.width() && need.height() <= room.height(),
             qPrintable(
                 QString("%1×%2 in %3×%4").arg(need.width()).arg(need.height()).arg(room.width()).arg(room.height())));
  }

  void rankDemoComputesAndControlsRequestParams() {
    RankDemoView v;
    showSized(v);
    Params p = smallParams();
    p.spectra.demo.sweepPoints = 6;
    v.showResult(run(p));
    QTRY_VERIFY_WITH_TIMEOUT(v.rankExp() > 0 && v.sweepPointsShown() == 6, 20000);
    QCOMPARE(v.rankOuter(), 1);
    QCOMPARE(v.nBox()->value(), 100);
    QSignalSpy spy(&v, &TraceView::paramsRequested);
    v.nBox()->setValue(40);
    QCOMPARE(spy.count(), 1);
    const Params asked = spy[0][0].value<Params>();
    QCOMPARE(asked.spectra.demo.n, 40);
    QCOMPARE(asked.sentence, p.sentence);  // everything else unchanged
    v.showResult(run(asked));
    QTRY_VERIFY_WITH_TIMEOUT(v.rankExp() > 0 && v.rankExp() <= 40, 20000);
  }

  void featureMapsCompareTheSelectedHead() {
    FeatureMapView v;
    showSized(v);
    const ResultPtr r = run(smallParams());
    v.showResult(r);
    QTRY_COMPARE_WITH_TIMEOUT(v.comparison().n, r->trace().tokenCount(), 20000);
    QCOMPARE(int(v.comparison().maps.size()), 4);
    QCOMPARE(v.comparison().maps[3].features, 4 * 8);  // Performer default m = 4·d_head
    QSignalSpy spy(&v, &TraceView::paramsRequested);
    v.featuresBox()->setValue(64);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy[0][0].value<Params>().spectra.features.performerFeatures, 64);
  }

  void headSizeSweepRuns() {
    HeadSizeView v;
    showSized(v);
    Params p = smallParams();
    p.spectra.headSize.n = 32;
    p.spectra.headSize.maxKeySize = 8;
    v.showResult(run(p));
    QTRY_COMPARE_WITH_TIMEOUT(int(v.sweep().keySizes.size()), 4, 20000);
    QCOMPARE(int(v.sweep().curves.size()), 5);
  }
};

ATTNLAB_TEST_MAIN(TestSpectraViews)
#include "test_spectra_views.moc"
