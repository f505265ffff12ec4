// The tiny encoder–decoder's backward pass (tiny_encdec_net.h) against central finite differences, in double:
// every tensor's analytic gradient, cross-attention's and the encoder's (reached only through it) included, must
// match (relative error ≤ 1e-5 per tensor, and per entry where the gradient is not tiny).
#include <QtTest>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/train/tiny_encdec_net.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

using MatD = Eigen::MatrixXd;

struct Problem {
  TinyEncDecConfig config;
  TinyEncDecParams<double> params;
  std::vector<int> source, target, labels;
  int batch = 2, ns = 4, nt = 3;  // different lengths: cross maps are not square
};

Problem makeProblem(int encoderLayers, int decoderLayers, uint64_t seed) {
  Problem p;
  p.config.symbols = 5, p.config.maxLength = 5, p.config.encoderLayers = encoderLayers;
  p.config.decoderLayers = decoderLayers, p.config.heads = 2, p.config.dModel = 8, p.config.ffn = 12;
  p.config.seed = seed;
  p.params = initTinyEncDecParams(p.config).cast<double>();
  Rng rng(seed + 5);
  // Move LayerNorm γ/β and biases off their initial 1/0 so every term of the gradient is exercised.
  p.params.forEach([&](const std::string&, MatD& t, TinyEncDecTensor) {
    for (Eigen::Index i = 0; i < t.size(); ++i) t.data()[i] += 0.3 * rng.normal();
  });
  const int V = p.config.vocab();
  for (int i = 0; i < p.batch * p.ns; ++i) p.source.push_back(static_cast<int>(rng.next() % V));
  for (int i = 0; i < p.batch * p.nt; ++i) {
    p.target.push_back(static_cast<int>(rng.next() % V));
    p.labels.push_back(static_cast<int>(rng.next() % V));
  }
  return p;
}

double loss(const Problem& p, const TinyEncDecParams<double>& w) {
  TinyEncDecForward<double> f;
  tinyEncDecForward(p.config, w, p.source.data(), p.target.data(), p.batch, p.ns, p.nt, f);
  MatD d;
  return tinyEncDecCrossEntropy(f, p.labels.data(), 0.0, d);
}

}  // namespace

class TestTinyEncDecGradients : public QObject {
  Q_OBJECT

 private slots:
  void matchesFiniteDifferences_data() {
    QTest::addColumn<int>("encoderLayers");
    QTest::addColumn<int>("decoderLayers");
    QTest::newRow("1+1") << 1 << 1;
    QTest::newRow("2+2") << 2 << 2;
    QTest::newRow("1+2") << 1 << 2;
  }

  void matchesFiniteDifferences() {
    QFETCH(int, encoderLayers);
    QFETCH(int, decoderLayers);
    const Problem p = makeProblem(encoderLayers, decoderLayers, 11);
    TinyEncDecForward<double> f;
    tinyEncDecForward(p.config, p.params, p.source.data(), p.target.data(), p.batch, p.ns, p.nt, f);
    MatD dLogits;
    tinyEncDecCrossEntropy(f, p.labels.data(), 0.0, dLogits);
    TinyEncDecParams<double> grads = p.params.zerosLike();
    tinyEncDecBackward(p.config, p.params, f, p.source.data(), p.target.data(), dLogits, grads);

    std::vector<const MatD*> analytic;
    grads.forEach([&](const std::string&, const MatD& g, TinyEncDecTensor) { analytic.push_back(&g); });
    TinyEncDecParams<double> w = p.params;
    std::size_t index = 0;
    int tensors = 0, cross = 0;
    w.forEach([&](const std::string& name, MatD& t, TinyEncDecTensor) {
      const MatD& g = *analytic[index++];
      cross += name.find("encoder_attn.") != std::string::npos;
      MatD numeric(t.rows(), t.cols());
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
      // A key bias adds q·b_k to every score of a row, which softmax ignores: its gradient is exactly zero.
      if (name.size() > 11 && name.compare(name.size() - 11, 11, "k_proj.bias") == 0) {
        QVERIFY2(g.norm() < 1e-12 && numeric.norm() < 1e-9, qPrintable(QString::fromStdString(name)));
        ++tensors;
        return;
      }
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
    // shared, 2 × (positions, embedding LN γ β), 16 per encoder layer, 26 per decoder layer
    QCOMPARE(tensors, 1 + 6 + 16 * encoderLayers + 26 * decoderLayers);
    QCOMPARE(cross, 8 * decoderLayers);
  }

  /// Cross-attention rows are distributions over the source (no mask); decoder self-attention is causal.
  void attentionRows() {
    const Problem p = makeProblem(1, 2, 3);
    TinyEncDecForward<double> f;
    tinyEncDecForward(p.config, p.params, p.source.data(), p.target.data(), p.batch, p.ns, p.nt, f);
    for (const auto& L : f.decoder) {
      QCOMPARE(static_cast<int>(L.cross.attention.size()), p.batch * p.config.heads);
      for (const MatD& a : L.cross.attention) {
        QCOMPARE(a.rows(), Eigen::Index(p.nt));
        QCOMPARE(a.cols(), Eigen::Index(p.ns));
        QVERIFY((a.rowwise().sum().array() - 1.0).abs().maxCoeff() < 1e-12);
        QVERIFY(a.minCoeff() > 0.0);
      }
      for (const MatD& a : L.self.attention)
        for (Eigen::Index i = 0; i < a.rows(); ++i)
          for (Eigen::Index j = i + 1; j < a.cols(); ++j) QCOMPARE(a(i, j), 0.0);
    }
  }

  /// All-zero weights (LayerNorm γ too) give uniform logits: loss = log V.
  void zeroWeightsGiveLogVocabulary() {
    Problem p = makeProblem(1, 1, 1);
    p.params.forEach([](const std::string&, MatD& t, TinyEncDecTensor) { t.setZero(); });
    QVERIFY(std::abs(loss(p, p.params) - std::log(static_cast<double>(p.config.vocab()))) < 1e-12);
  }

  void badConfigs() {
    TinyEncDecConfig c;
    c.heads = 3;  // 32 is not a multiple of 3
    QVERIFY_THROWS_EXCEPTION(InputError, validate(c));
    c = TinyEncDecConfig{};
    c.encoderLayers = 0;
    QVERIFY_THROWS_EXCEPTION(InputError, validate(c));
    c = TinyEncDecConfig{};
    c.maxLength = 1000;
    QVERIFY_THROWS_EXCEPTION(InputError, validate(c));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTinyEncDecGradients)
#include "test_tiny_encdec_gradients.moc"
