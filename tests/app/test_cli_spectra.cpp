// The command line's spectra contract (issue 4): `attnlab dump --spectrum` and `attnlab rank-demo`,
// exact key names, values that follow from the maths, and clear errors.
#include <QTemporaryDir>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

#include <nlohmann/json.hpp>

namespace {

using Run = AppRun;

Run attnlab(const QStringList& args) { return runApp(args, {}, 120000); }

}  // namespace

class TestCliSpectra : public QObject {
  Q_OBJECT
 private slots:
  void rankDemoJson_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("sweepPoints");  // 0: no "sweep" key
    QTest::newRow("seed's example") << QStringList{"--n", "100", "--scale", "1", "--seed", "3"} << 100 << 0;
    QTest::newRow("sweep") << QStringList{"--n", "60", "--seed", "1", "--sweep", "--sweep-points", "5"} << 60 << 5;
    QTest::newRow("negative c") << QStringList{"--n", "30", "--scale=-0.5"} << 30 << 0;
  }
  void rankDemoJson() {
    QFETCH(QStringList, args);
    QFETCH(int, n);
    QFETCH(int, sweepPoints);
    const Run r = attnlab(QStringList{"rank-demo"} + args);
    QVERIFY2(r.code == 0, r.err.constData());
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(int(j["x"].size()), n);
    QCOMPARE(j["rank_outer"].get<int>(), 1);
    const int rankExp = j["rank_exp"].get<int>();
    QVERIFY(rankExp > 1 && rankExp <= n);
    QCOMPARE(int(j["outer_singular_values"].size()), n);
    QCOMPARE(int(j["exp_singular_values"].size()), n);
    // The ranks are the counts above the printed thresholds.
    int above = 0;
    for (const auto& s : j["exp_singular_values"]) above += s.get<double>() > j["threshold_exp"].get<double>();
    QCOMPARE(above, rankExp);
    QCOMPARE(j.contains("sweep"), sweepPoints > 0);
    if (sweepPoints) {
      QCOMPARE(int(j["sweep"].size()), sweepPoints);
      for (const auto& p : j["sweep"])
        QVERIFY(p.contains("scale") && p.contains("rank") && p.contains("effective_rank"));
      QCOMPARE(j["sweep"][0]["scale"].get<double>(), 0.01);
    }
  }

  void rankDemoErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("n too small") << QStringList{"--n", "1"} << "--n must be between 2 and 4096";
    QTest::newRow("scale not a number") << QStringList{"--scale", "big"} << "--scale expects a number";
    QTest::newRow("sweep reversed") << QStringList{"--sweep-min", "3", "--sweep-max", "1"} << "sweep_max";
    QTest::newRow("unknown option") << QStringList{"--sentence", "hi"} << "unknown option --sentence";
  }
  void rankDemoErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = attnlab(QStringList{"rank-demo"} + args);
    QCOMPARE(r.code, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
  }

  void dumpSpectrum() {
    const QStringList common{"dump",
                             "--d-model",
                             "32",
                             "--heads",
                             "4",
                             "--layer",
                             "1",
                             "--head",
                             "3",
                             "--sentence",
                             "one two three four five six seven eight nine ten eleven twelve"};
    const Run with = attnlab(common + QStringList{"--spectrum"});
    QVERIFY2(with.code == 0, with.err.constData());
    const auto j = nlohmann::json::parse(with.out.toStdString());
    QVERIFY(j.contains("spectrum"));
    const auto& s = j["spectrum"];
    for (const char* key : {"singular_values", "numerical_rank", "effective_rank", "eigenvalues",
                            "scores_singular_values", "exp_scores_singular_values"})
      QVERIFY2(s.contains(key), key);
    const int n = 12, d = 8;
    QCOMPARE(int(s["singular_values"].size()), n);
    QCOMPARE(int(s["eigenvalues"].size()), n);
    QCOMPARE(int(s["eigenvalues"][0].size()), 2);  // [re, im]
    // A row-stochastic matrix: the largest eigenvalue is 1.
    QVERIFY(std::abs(s["eigenvalues"][0][0].get<double>() - 1.0) <= 1e-12);
    QVERIFY(s["numerical_rank"].get<int>() >= 1 && s["numerical_rank"].get<int>() <= n);
    QVERIFY(s["scores_numerical_rank"].get<int>() <= d);
    QVERIFY(s["exp_scores_numerical_rank"].get<int>() > d);
    const Run without = attnlab(common);
    QCOMPARE(without.code, 0);
    QVERIFY(!nlohmann::json::parse(without.out.toStdString()).contains("spectrum"));
  }

  void exportsTheViews_data() {
    QTest::addColumn<QString>("view");
    for (const char* v : {"spectrum", "rank-table", "rank-demo", "feature-maps", "head-size"}) QTest::newRow(v) << v;
  }
  void exportsTheViews() {
    QFETCH(QString, view);
    QTemporaryDir dir;
    const QString out = dir.filePath(view + ".png");
    const Run r = attnlab({"export", "--view", view, "--out", out, "--width", "800", "--height", "600"});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY(QFileInfo(out).size() > 10000);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliSpectra)
#include "test_cli_spectra.moc"
