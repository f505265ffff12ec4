// `attnlab collapse` (its JSON is a public contract) and the collapse/paths views drawing through
// their BackgroundJobs.
#include <QCheckBox>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "ui/shell/view_factory.h"
#include "ui/views/depth/collapse_controls.h"
#include "ui/views/depth/collapse_view.h"
#include "ui/views/depth/paths_view.h"

using namespace attnlab;

using Run = AppRun;

class TestCollapseCli : public QObject {
  Q_OBJECT
 private slots:
  void printsTheContract() {
    const Run r =
        runApp({"collapse", "--depth", "6", "--tokens", "8", "--d-model", "16", "--heads", "2", "--init", "xavier",
                "--seeds", "3", "--configs", "san,san-skip,pre-ln", "--variant", "softmax", "--norm", "fro"});
    QVERIFY2(r.code == 0, r.err.constData());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j.at("depths").size(), std::size_t(7));
    QCOMPARE(j.at("depths")[6].get<int>(), 6);
    QCOMPARE(j.at("configs").size(), std::size_t(3));
    for (const char* c : {"san", "san-skip", "pre-ln"})
      for (const char* k : {"median", "min", "max"}) QCOMPARE(j.at("configs").at(c).at(k).size(), std::size_t(7));
    const auto& san = j.at("configs").at("san");
    for (int l = 0; l <= 6; ++l) {
      QVERIFY(san.at("min")[l].get<double>() <= san.at("median")[l].get<double>());
      QVERIFY(san.at("median")[l].get<double>() <= san.at("max")[l].get<double>());
    }
    QCOMPARE(j.at("settings").at("norm").get<std::string>(), std::string("fro"));
    QVERIFY(!j.at("reading").get<std::string>().empty());
  }

  void pathsOnRequest() {
    const Run r = runApp({"collapse", "--depth", "4", "--tokens", "5", "--d-model", "8", "--heads", "2", "--seeds", "1",
                          "--configs", "san", "--paths", "--path-samples", "2"});
    QVERIFY2(r.code == 0, r.err.constData());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j.at("paths").at("log10_count").size(), std::size_t(5));
  }

  void errorsAreClear_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("variant") << QStringList{"--variant", "linear"} << "not available in the deep stack yet";
    QTest::newRow("config") << QStringList{"--configs", "san,foo"} << "unknown configuration 'foo'";
    QTest::newRow("norm") << QStringList{"--norm", "l2"} << "unknown residual norm 'l2'";
    QTest::newRow("heads") << QStringList{"--d-model", "10", "--heads", "4"} << "collapse.heads must divide";
    QTest::newRow("depth") << QStringList{"--depth", "129"} << "--depth must be between 1 and 128";
  }
  void errorsAreClear() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = runApp(QStringList{"collapse", "--depth", "2", "--seeds", "1"} + args);
    QCOMPARE(r.code, 1);
    QVERIFY2(QString(r.err).contains(message), r.err.constData());
    QVERIFY(r.out.isEmpty());
  }

  void collapseViewDrawsCurvesAndInspector() {
    std::unique_ptr<ui::TraceView> view(ui::createView("collapse"));
    auto* v = qobject_cast<ui::CollapseView*>(view.get());
    QVERIFY(v);
    auto r = std::make_shared<ui::ComputeResult>();
    r->params.collapse.depth = 6;
    r->params.collapse.tokens = 6;
    r->params.collapse.dModel = 8;
    r->params.collapse.heads = 2;
    r->params.collapse.seeds = 2;
    r->params.collapse.configs = {StackConfig::San, StackConfig::SanSkip};
    r->params.collapse.inspectDepth = 5;
    v->resize(900, 700);
    v->showResult(r);
    v->waitForAnalyses();
    QVERIFY(v->collapseResult());
    QCOMPARE(v->curvesPlot()->graphCount(), 2 * 3);  // per config: band low, band high, median
    QVERIFY(v->readingText().startsWith("pure attention"));
    QVERIFY(v->inspection());
    QCOMPARE(v->inspection()->depth, 5);
    QCOMPARE(v->inspection()->attention.size(), std::size_t(2));

    // A toggle asks for new parameters (the window would run them); nothing is computed in place.
    std::vector<Params> requested;
    connect(v, &ui::TraceView::paramsRequested, this, [&](const Params& p) { requested.push_back(p); });
    v->controls()->configToggle(StackConfig::PreLn)->setChecked(true);
    QCOMPARE(requested.size(), std::size_t(1));
    QCOMPARE(requested[0].collapse.configs.size(), std::size_t(3));
  }

  void pathsViewDraws() {
    std::unique_ptr<ui::TraceView> view(ui::createView("paths"));
    auto* v = qobject_cast<ui::PathsView*>(view.get());
    QVERIFY(v);
    auto r = std::make_shared<ui::ComputeResult>();
    r->params.collapse.depth = 5;
    r->params.collapse.tokens = 6;
    r->params.collapse.dModel = 8;
    r->params.collapse.heads = 2;
    r->params.collapse.seeds = 1;
    r->params.collapse.pathSamples = 3;
    v->showResult(r);
    v->waitForAnalyses();
    QVERIFY(v->analysis());
    QCOMPARE(v->analysis()->log10Count.size(), std::size_t(6));
  }
};

ATTNLAB_TEST_MAIN(TestCollapseCli)
#include "test_collapse_cli.moc"
