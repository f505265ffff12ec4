// The deep-stack runner against an independent float64 PyTorch implementation of the seven
// configurations (tests/reference/make_collapse_reference.py): the same X_0 and weights (biases and
// LayerNorm parameters random too), the relative residual per depth in both norms and the final X.
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/collapse/collapse_settings.h"
#include "core/collapse/deep_stack.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
using nlohmann::json;

namespace {

MatD matrixFromJson(const json& rows) {
  MatD m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = rows[i][j].get<double>();
  return m;
}

VecD vectorFromJson(const json& values) {
  VecD v(static_cast<Eigen::Index>(values.size()));
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = values[i].get<double>();
  return v;
}

StackWeights weightsFromJson(const json& ref) {
  StackWeights w;
  w.dModel = ref.at("d_model").get<int>();
  w.heads = ref.at("heads").get<int>();
  for (const json& l : ref.at("layers")) {
    StackLayerWeights s;
    s.wq = matrixFromJson(l.at("wq"));
    s.wk = matrixFromJson(l.at("wk"));
    s.wv = matrixFromJson(l.at("wv"));
    s.wo = matrixFromJson(l.at("wo"));
    s.w1 = matrixFromJson(l.at("w1"));
    s.b1 = vectorFromJson(l.at("b1"));
    s.w2 = matrixFromJson(l.at("w2"));
    s.b2 = vectorFromJson(l.at("b2"));
    s.ln1Gamma = vectorFromJson(l.at("ln1_gamma"));
    s.ln1Beta = vectorFromJson(l.at("ln1_beta"));
    s.ln2Gamma = vectorFromJson(l.at("ln2_gamma"));
    s.ln2Beta = vectorFromJson(l.at("ln2_beta"));
    w.layers.push_back(std::move(s));
  }
  return w;
}

}  // namespace

class TestCollapseReference : public QObject {
  Q_OBJECT
  json ref_;

 private slots:
  void initTestCase() {
    std::ifstream in(std::string(ATTNLAB_TEST_DATA) + "/reference/collapse_reference.json");
    QVERIFY2(in.good(), "tests/reference/collapse_reference.json is missing");
    ref_ = json::parse(in);
  }

  void matchesTorch_data() {
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("norm");
    // Relative tolerance on residuals above 1e-9; below, both must sit at rounding level. The
    // reference subtracts the plain mean, the engine a shifted one: they differ by rounding only.
    QTest::addColumn<double>("tolerance");
    for (StackConfig c : CollapseSettings::allStackConfigs())
      for (const char* norm : {"composite", "fro"})
        QTest::newRow(qPrintable(QString("%1 %2").arg(toString(c), norm)))
            << QString(toString(c)) << QString(norm) << 1e-8;
  }
  void matchesTorch() {
    QFETCH(QString, config);
    QFETCH(QString, norm);
    QFETCH(double, tolerance);
    const StackWeights w = weightsFromJson(ref_);
    const int depth = ref_.at("depth").get<int>();
    StackOptions options;
    options.norm = parseResidualNorm(norm.toStdString());
    options.keepStates = true;
    const StackRun run = runStack(parseStackConfig(config.toStdString()), w, depth, matrixFromJson(ref_.at("x0")),
                                  softmaxAttention(w.dModel / w.heads), options);
    const json& want = ref_.at("expected").at(config.toStdString());
    QCOMPARE(run.reachedDepth(), depth);
    for (int l = 0; l <= depth; ++l) {
      const double expected = want.at(norm.toStdString())[l].get<double>(), got = run.residual[l];
      const bool ok = expected > 1e-9 ? std::abs(got - expected) <= tolerance * expected : got < 1e-9;
      QVERIFY2(ok,
               qPrintable(QString("depth %1: %2 vs torch %3").arg(l).arg(got, 0, 'g', 17).arg(expected, 0, 'g', 17)));
    }
    ATTNLAB_COMPARE_MATRICES(run.states[depth], matrixFromJson(want.at("final")), 1e-10);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCollapseReference)
#include "test_collapse_reference.moc"
