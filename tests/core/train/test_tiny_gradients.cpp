// Every backward pass of the trainable tiny transformer against central finite differences, in double:
// for each attention variant, with and without MLP and LayerNorm, every parameter tensor's analytic
// gradient must match (relative error ≤ 1e-5 per tensor, and per entry where the gradient is not tiny).
#include <QtTest>

#include "core/base/rng.h"
#include "core/train/tiny_net.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

using MatD2 = Eigen::MatrixXd;

struct Problem {
  TinyConfig config;
  TinyParams<double> params;
  std::vector<int> ids, targets;
  int batch = 2, tokens = 5;
};

Problem makeProblem(TinyAttention variant, bool mlp, bool layerNorm, uint64_t seed, bool relu = false) {
  Problem p;
  p.config.vocab = 7, p.config.context = 6, p.config.layers = 2, p.config.heads = 2, p.config.dModel = 8;
  p.config.mlp = mlp, p.config.layerNorm = layerNorm, p.config.attention = variant, p.config.seed = seed;
  p.config.relu = relu;
  p.params = initTinyParams(p.config).cast<double>();
  Rng rng(seed + 99);
  // Move LayerNorm γ/β and biases off their initial 1/0 so every term of the gradient is exercised.
  p.params.forEach([&](const std::string&, MatD2& t) {
    for (Eigen::Index i = 0; i < t.size(); ++i) t.data()[i] += 0.3 * rng.normal();
  });
  for (int i = 0; i < p.batch * p.tokens; ++i) {
    p.ids.push_back(static_cast<int>(rng.next() % 7));
    p.targets.push_back(i % 3 == 0 ? -1 : static_cast<int>(rng.next() % 7));  // some rows unscored
  }
  return p;
}

double loss(const Problem& p, const TinyParams<double>& w) {
  TinyForward<double> f;
  tinyForward(p.config, w, p.ids.data(), p.batch, p.tokens, f, p.targets.data());  // scored rows only, as in training
  MatD2 d;
  return tinyCrossEntropy(f, p.targets.data(), 0.0, d);
}

}  // namespace

class TestTinyGradients : public QObject {
  Q_OBJECT

 private slots:
  void matchesFiniteDifferences_data() {
    QTest::addColumn<int>("variant");
    QTest::addColumn<bool>("mlp");
    QTest::addColumn<bool>("layerNorm");
    QTest::addColumn<bool>("relu");
    for (TinyAttention v : {TinyAttention::Softmax, TinyAttention::LinearElu, TinyAttention::LinearExp})
      for (bool mlp : {false, true})
        for (bool ln : {false, true}) {
          const QByteArray name = QByteArray(toString(v)) + (mlp ? " mlp" : " attn-only") + (ln ? " ln" : " no-ln");
          QTest::newRow(name.constData()) << static_cast<int>(v) << mlp << ln << false;
        }
    // ReLU MLP (its kink at 0 is never hit by random pre-activations, so central differences hold)
    QTest::newRow("softmax mlp-relu ln") << static_cast<int>(TinyAttention::Softmax) << true << true << true;
    QTest::newRow("linear_elu mlp-relu no-ln") << static_cast<int>(TinyAttention::LinearElu) << true << false << true;
  }

  void matchesFiniteDifferences() {
    QFETCH(int, variant);
    QFETCH(bool, mlp);
    QFETCH(bool, layerNorm);
    QFETCH(bool, relu);
    const Problem p = makeProblem(static_cast<TinyAttention>(variant), mlp, layerNorm, 7, relu);
    TinyForward<double> f;
    tinyForward(p.config, p.params, p.ids.data(), p.batch, p.tokens, f, p.targets.data());
    MatD2 dLogits;
    tinyCrossEntropy(f, p.targets.data(), 0.0, dLogits);
    TinyParams<double> grads = p.params.zerosLike();
    tinyBackward(p.config, p.params, f, p.ids.data(), dLogits, grads);

    std::vector<const MatD2*> analytic;
    grads.forEach([&](const std::string&, const MatD2& g) { analytic.push_back(&g); });
    TinyParams<double> w = p.params;
    std::size_t index = 0;
    int tensors = 0;
    w.forEach([&](const std::string& name, MatD2& t) {
      const MatD2& g = *analytic[index++];
      MatD2 numeric(t.rows(), t.cols());
      const double h = 1e-5;
      for (Eigen::Index i = 0; i < t.size(); ++i) {
        const double keep = t.data()[i];
        t.data()[i] = keep + h;
        const double up = loss(p, w);
        t.data()[i] = keep - h;
        const double down = loss(p, w);
        t.data()[i] = keep;
        numeric.data()[i] = (up - down) / (2 * h);
      }
      const double scale = std::max(g.norm(), numeric.norm());
      QVERIFY2(scale > 1e-8, qPrintable(QString::fromStdString(name) + ": gradient is zero"));
      const double rel = (g - numeric).norm() / scale;
      QVERIFY2(rel <= 1e-5, qPrintable(QString("%1: relative error %2").arg(QString::fromStdString(name)).arg(rel)));
      for (Eigen::Index i = 0; i < t.size(); ++i) {
        const double a = g.data()[i], n = numeric.data()[i];
        QVERIFY2(
            std::abs(a - n) <= 1e-5 * std::max(std::abs(a), std::abs(n)) + 1e-8,
            qPrintable(
                QString("%1[%2]: analytic %3, numeric %4").arg(QString::fromStdString(name)).arg(i).arg(a).arg(n)));
      }
      ++tensors;
    });
    QVERIFY(tensors >= 8);
  }

  /// Attention rows of every variant are causal distributions: sum 1, zero above the diagonal.
  void attentionRowsAreCausalDistributions() {
    for (TinyAttention v : {TinyAttention::Softmax, TinyAttention::LinearElu, TinyAttention::LinearExp}) {
      const Problem p = makeProblem(v, true, true, 3);
      TinyForward<double> f;
      tinyForward(p.config, p.params, p.ids.data(), p.batch, p.tokens, f);
      for (const auto& layer : f.layers)
        for (const MatD2& a : layer.attention) {
          QCOMPARE(a.rows(), p.tokens);
          for (Eigen::Index i = 0; i < a.rows(); ++i) {
            QVERIFY(std::abs(a.row(i).sum() - 1.0) < 1e-12);
            for (Eigen::Index j = i + 1; j < a.cols(); ++j) QCOMPARE(a(i, j), 0.0);
            QVERIFY(a.row(i).minCoeff() >= 0.0);
          }
        }
    }
  }

  /// The loss of a hand-checkable case: all-zero weights give uniform logits, loss = log V.
  void zeroWeightsGiveLogVocabulary() {
    Problem p = makeProblem(TinyAttention::Softmax, true, false, 1);
    p.params.forEach([](const std::string&, MatD2& t) { t.setZero(); });
    QVERIFY(std::abs(loss(p, p.params) - std::log(7.0)) < 1e-12);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTinyGradients)
#include "test_tiny_gradients.moc"
