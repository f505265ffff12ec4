// The variants and complexity views: results arrive from their background jobs, tiles and metrics
// follow the parameters, the controls emit parameter edits, and the views are registered.
#include <QtTest>

#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>

#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/view_factory.h"
#include "ui/views/variants/complexity_view.h"
#include "ui/views/variants/variant_controls.h"
#include "ui/views/variants/variants_view.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestVariantsView : public QObject {
  Q_OBJECT
 private slots:
  void registered() {
    QVERIFY(viewNames().contains("variants"));
    QVERIFY(viewNames().contains("complexity"));
    std::unique_ptr<TraceView> v(createView("variants"));
    QVERIFY(v && v->viewName() == "variants");
    std::unique_ptr<TraceView> c(createView("complexity"));
    QVERIFY(c && c->viewName() == "complexity");
  }

  void showsEveryTickedVariant() {
    Params p;
    p.variants.names = {"softmax", "linear-elu", "performer-trig"};
    p.variants.window = 1;
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    QVERIFY(r->ok());
    VariantsView view;
    view.resize(1200, 900);
    view.showResult(r);
    QTRY_VERIFY(view.comparison() != nullptr);
    QCOMPARE(int(view.comparison()->variants.size()), 3);
    QCOMPARE(view.comparison()->mask.window, 1);
    QCOMPARE(view.metricsTable()->rowCount(), 3);
    QCOMPARE(view.metricsTable()->item(2, 0)->text(), QString("performer-trig"));
    // The softmax tile is the trace's own head (same scaling, same softmax), up to float precision.
    const MatD& softmax = view.comparison()->variants[0].attention;
    QCOMPARE(view.metricsTable()->item(0, 4)->text(), QString("0"));
    QVERIFY(softmax.rows() == r->trace().tokenCount());
    QTRY_VERIFY(view.curve() != nullptr);
    QCOMPARE(int(view.curve()->series.size()), 4);
  }

  void softmaxTileEqualsTheTracedHead() {
    Params p;
    p.variants.names = {"softmax"};
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    VariantsView view;
    view.showResult(r);
    QTRY_VERIFY(view.comparison() != nullptr);
    const MatD traced = r->trace().layers[0].heads[0].attention.cast<double>();
    QVERIFY((view.comparison()->variants[0].attention - traced).cwiseAbs().maxCoeff() < 1e-6);
  }

  void controlsEmitParameterEdits() {
    Params p;
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    VariantsView view;
    view.showResult(r);
    std::vector<Params> emitted;
    connect(&view, &TraceView::paramsRequested, this, [&emitted](const Params& e) { emitted.push_back(e); });
    view.controls()->featuresBox()->setValue(256);
    QCOMPARE(int(emitted.size()), 1);
    const Params edited = emitted.front();
    QCOMPARE(edited.variants.features, 256);
    QCOMPARE(QString::fromStdString(edited.sentence), QString::fromStdString(p.sentence));
    view.controls()->windowSlider()->setValue(3);  // disabled until the window is on: no edit
    QVERIFY(!view.controls()->windowSlider()->isEnabled());
  }

  void layoutFitsTheExportWidth() {
    Params p;
    VariantsView view;
    view.showResult(LiveController::compute(p, nullptr, {}));
    QTRY_VERIFY(view.comparison() != nullptr);
    QVERIFY2(view.minimumSizeHint().width() <= 1200, qPrintable(QString::number(view.minimumSizeHint().width())));
  }

  void complexityMeasuresOffTheGuiThread() {
    Params p;
    p.variants.names = {"softmax", "linear-elu"};
    const ResultPtr r = LiveController::compute(p, nullptr, {});
    ComplexityView view;
    SweepLimits small;
    small.maxEfficientN = 256;
    small.maxExplicitN = 128;
    view.setLimits(small);
    view.showResult(r);
    QVERIFY(view.sweep() == nullptr);  // nothing measured on this thread
    QTRY_VERIFY(view.sweep() != nullptr);
    QCOMPARE(int(view.sweep()->series.size()), 4);
    for (const TimingSeries& s : view.sweep()->series) {
      QVERIFY(!s.n.empty());
      QVERIFY(s.n.back() <= (s.efficient ? 256 : 128));
    }
  }
};

ATTNLAB_TEST_MAIN(TestVariantsView)
#include "test_variants_view.moc"
