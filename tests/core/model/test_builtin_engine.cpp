// Hand-computed and property tests of the built-in transformer (core/model/builtin_model.h): things that
// must hold whatever the random weights are, for every rung of the teaching ladder.
#include <QtTest>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/base/errors.h"
#include "core/model/builtin_model.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

Q_DECLARE_METATYPE(attnlab::Mode)
Q_DECLARE_METATYPE(attnlab::NormPlacement)

namespace {

// Eight distinct words, so that every permutation really moves rows of X that differ.
const char* const kSentence = "the quick brown fox jumps over lazy dogs";

ModelConfig smallConfig(Mode mode, PositionKind position = PositionKind::Sinusoidal) {
  ModelConfig c;
  c.mode = mode;
  c.dModel = 16;
  c.heads = 4;
  c.layers = 2;
  c.position = position;
  return c;
}

Trace run(const BuiltinModel& model, const std::string& sentence = kSentence) {
  return model.forward(model.tokenize(sentence));
}

/// Every matrix of a trace, with a name for failure messages (copies: a head's output is a block of concat).
std::vector<std::pair<std::string, Mat>> allMatrices(const Trace& t) {
  std::vector<std::pair<std::string, Mat>> out{{"embeddings", t.embeddings}};
  for (int l = 0; l < t.layerCount(); ++l) {
    const LayerTrace& lt = t.layers[l];
    const std::string at = "layer " + std::to_string(l) + " ";
    for (int h = 0; h < static_cast<int>(lt.heads.size()); ++h) {
      const HeadTrace& ht = lt.heads[h];
      const std::string ah = at + "head " + std::to_string(h) + " ";
      out.insert(out.end(), {{ah + "q", ht.q},
                             {ah + "k", ht.k()},
                             {ah + "v", ht.v()},
                             {ah + "scores", ht.scores},
                             {ah + "attention", ht.attention},
                             {ah + "output", lt.headOutput(h)}});
    }
    out.insert(out.end(), {{at + "concat", lt.concat},
                           {at + "attention_out", lt.attentionOut},
                           {at + "mlp_out", lt.mlpOut},
                           {at + "residual_out", lt.residualOut}});
  }
  return out;
}

/// Message of the InputError that f throws; empty when it throws nothing (other exceptions escape).
QString inputErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

/// P with P(i, perm[i]) = 1: (P·M) row i is M's row perm[i].
Mat permutationMatrix(const std::vector<int>& perm) {
  Mat p = Mat::Zero(static_cast<int>(perm.size()), static_cast<int>(perm.size()));
  for (int i = 0; i < static_cast<int>(perm.size()); ++i) p(i, perm[i]) = 1;
  return p;
}

}  // namespace

class TestBuiltinEngine : public QObject {
  Q_OBJECT

 private slots:
  // The basic rung on X = [[1,0],[0,1],[1,1]] worked out by hand:
  //   X·Xᵀ = [[1,0,1],[0,1,1],[1,1,2]]          (no scaling at this rung)
  //   row 0: softmax(1,0,1) = (e, 1, e)/(2e+1)  = (0.4223187982515182, 0.15536240349696362, 0.4223187982515182)
  //   row 1: softmax(0,1,1) = (1, e, e)/(2e+1)
  //   row 2: softmax(1,1,2) = (1, 1, e)/(2+e)   = (0.21194155761708544, 0.21194155761708544, 0.5761168847658291)
  //   y = w·X: row 0 = (w00 + w02, w01 + w02) = (0.8446375965030364, 0.5776812017484818)
  //            row 1 = (w10 + w12, w11 + w12) = (0.5776812017484818, 0.8446375965030364)
  //            row 2 = (w20 + w22, w21 + w22) = (0.7880584423829146, 0.7880584423829146)
  void basicRungByHand() {
    ModelConfig c;
    c.mode = Mode::Basic;
    c.dModel = 2;
    c.heads = 1;
    c.layers = 1;
    const BuiltinModel model(c);
    Mat x(3, 2);
    x << 1, 0, 0, 1, 1, 1;
    const Trace t = model.forwardEmbeddings(x);
    QCOMPARE(t.layerCount(), 1);
    QCOMPARE(t.headCount(), 1);
    const HeadTrace& h = t.layers[0].heads[0];

    MatD scores(3, 3);
    scores << 1, 0, 1, 0, 1, 1, 1, 1, 2;
    ATTNLAB_COMPARE_MATRICES(h.scores, scores, 0.0);  // small integers: exact in float
    ATTNLAB_COMPARE_MATRICES(h.q, x, 0.0);            // no projections: Q = K = V = X
    ATTNLAB_COMPARE_MATRICES(h.k(), x, 0.0);
    ATTNLAB_COMPARE_MATRICES(h.v(), x, 0.0);

    const double a = 0.4223187982515182, b = 0.15536240349696362;    // e/(2e+1), 1/(2e+1)
    const double c2 = 0.21194155761708544, d2 = 0.5761168847658291;  // 1/(2+e), e/(2+e)
    MatD attention(3, 3);
    attention << a, b, a, b, a, a, c2, c2, d2;
    ATTNLAB_COMPARE_MATRICES(h.attention, attention, 1e-6);

    MatD y(3, 2);
    y << 0.8446375965030364, 0.5776812017484818, 0.5776812017484818, 0.8446375965030364, 0.7880584423829146,
        0.7880584423829146;
    ATTNLAB_COMPARE_MATRICES(Mat(t.layers[0].headOutput(0)), y, 1e-6);
    // One head, no Wo, no block: the layer's output is the head's output.
    ATTNLAB_COMPARE_MATRICES(t.layers[0].concat, y, 1e-6);
    ATTNLAB_COMPARE_MATRICES(t.layers[0].attentionOut, y, 1e-6);
    ATTNLAB_COMPARE_MATRICES(t.layers[0].residualOut, y, 1e-6);
    QCOMPARE(t.layers[0].mlpOut.size(), Eigen::Index(0));
  }

  void attentionRowsSumToOne_data() {
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<NormPlacement>("norm");
    for (Mode m : {Mode::Basic, Mode::Qkv, Mode::Scaled, Mode::Multihead, Mode::Causal, Mode::Block}) {
      QTest::newRow(toString(m)) << m << false << NormPlacement::Pre;
      QTest::newRow((std::string(toString(m)) + " causal").c_str()) << m << true << NormPlacement::Pre;
    }
    QTest::newRow("block post") << Mode::Block << false << NormPlacement::Post;
    QTest::newRow("block no norm") << Mode::Block << false << NormPlacement::None;
  }
  void attentionRowsSumToOne() {
    QFETCH(Mode, mode);
    QFETCH(bool, causal);
    QFETCH(NormPlacement, norm);
    ModelConfig c;  // the default shape: d 64, 4 heads, 2 layers
    c.mode = mode;
    c.causal = causal;
    c.norm = norm;
    const Trace t = run(BuiltinModel(c));
    QCOMPARE(t.tokenCount(), 8);
    QCOMPARE(t.headCount(), mode >= Mode::Multihead ? 4 : 1);
    for (const LayerTrace& lt : t.layers)
      for (const HeadTrace& h : lt.heads) {
        QCOMPARE(h.attention.rows(), Eigen::Index(8));
        QCOMPARE(h.attention.cols(), Eigen::Index(8));
        QVERIFY(h.attention.minCoeff() >= 0.0f);
        for (Eigen::Index i = 0; i < h.attention.rows(); ++i)
          QVERIFY2(std::abs(h.attention.row(i).sum() - 1.0f) <= 1e-5f, qPrintable(QString("row %1").arg(i)));
      }
  }

  void causalUpperTriangleIsExactlyZero_data() {
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<bool>("causalSwitch");
    QTest::newRow("causal rung") << Mode::Causal << false;
    QTest::newRow("basic + switch") << Mode::Basic << true;
    QTest::newRow("qkv + switch") << Mode::Qkv << true;
    QTest::newRow("multihead + switch") << Mode::Multihead << true;
    QTest::newRow("block + switch") << Mode::Block << true;
  }
  void causalUpperTriangleIsExactlyZero() {
    QFETCH(Mode, mode);
    QFETCH(bool, causalSwitch);
    ModelConfig c = smallConfig(mode);
    c.causal = causalSwitch;
    const Trace t = run(BuiltinModel(c));
    QVERIFY(t.causal);
    for (const LayerTrace& lt : t.layers)
      for (const HeadTrace& h : lt.heads) {
        const Eigen::Index n = h.attention.rows();
        for (Eigen::Index i = 0; i < n; ++i) {
          for (Eigen::Index j = i + 1; j < n; ++j) {
            QCOMPARE(h.attention(i, j), 0.0f);
            QVERIFY(std::isfinite(h.scores(i, j)));  // the trace keeps the scores unmasked
          }
          QVERIFY(h.attention(i, i) > 0.0f);
        }
        QCOMPARE(h.attention(0, 0), 1.0f);  // the first token can only see itself
      }

    // Control: without the mask the same model attends to later tokens.
    if (mode != Mode::Causal) {
      c.causal = false;
      const Trace open = run(BuiltinModel(c));
      QVERIFY(!open.causal);
      const Mat& a = open.layers[0].heads[0].attention;
      QVERIFY(a.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().maxCoeff() > 0.0f);
    }
  }

  // Attention has no notion of order: without position information, permuting the tokens permutes
  // every output row the same way and the attention matrix as P·A·Pᵀ. Causal masks are
  // position-dependent, so the causal rung is left out.
  void permutationEquivariance_data() {
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<NormPlacement>("norm");
    for (Mode m : {Mode::Basic, Mode::Qkv, Mode::Scaled, Mode::Multihead, Mode::Block})
      QTest::newRow(toString(m)) << m << NormPlacement::Pre;
    QTest::newRow("block post") << Mode::Block << NormPlacement::Post;
    QTest::newRow("block no norm") << Mode::Block << NormPlacement::None;
  }
  void permutationEquivariance() {
    QFETCH(Mode, mode);
    QFETCH(NormPlacement, norm);
    const std::vector<int> perm{3, 0, 7, 5, 1, 6, 2, 4};  // new token i is old token perm[i]
    const Mat p = permutationMatrix(perm);                // [8, 8]

    auto permutedRun = [&](PositionKind position) {
      ModelConfig c = smallConfig(mode, position);
      c.norm = norm;
      const BuiltinModel model(c);
      const TokenizedText text = model.tokenize(kSentence);
      TokenizedText shuffled;
      for (int i : perm) shuffled.tokens.push_back(text.tokens[i]);
      return std::make_pair(model.forward(text), model.forward(shuffled));
    };

    const auto [t, tp] = permutedRun(PositionKind::None);
    QCOMPARE(t.tokenCount(), 8);
    for (int l = 0; l < t.layerCount(); ++l) {
      for (int h = 0; h < t.headCount(); ++h) {
        const Mat pa = p * t.layers[l].heads[h].attention * p.transpose();
        ATTNLAB_COMPARE_MATRICES(tp.layers[l].heads[h].attention, pa, 1e-5);
        const Mat ps = p * t.layers[l].heads[h].scores * p.transpose();
        ATTNLAB_COMPARE_MATRICES(tp.layers[l].heads[h].scores, ps, 1e-5);
      }
      const Mat pc = p * t.layers[l].concat;
      ATTNLAB_COMPARE_MATRICES(tp.layers[l].concat, pc, 1e-5);
      const Mat py = p * t.layers[l].residualOut;
      ATTNLAB_COMPARE_MATRICES(tp.layers[l].residualOut, py, 1e-5);
    }

    // With position information the tokens' rows change with their places: no longer equivariant.
    for (PositionKind position : {PositionKind::Sinusoidal, PositionKind::LearnedRandom}) {
      const auto [s, sp] = permutedRun(position);
      const Mat py = p * s.layers.back().residualOut;
      // Scores rather than attention: at the basic rung softmax(X·Xᵀ) can be so close to the identity
      // that P·A·Pᵀ ≈ A' holds anyway, while the scores always show the position terms.
      const Mat ps = p * s.layers[0].heads[0].scores * p.transpose();
      QVERIFY2((sp.layers.back().residualOut - py).cwiseAbs().maxCoeff() > 1e-2f, toString(position));
      QVERIFY2((sp.layers[0].heads[0].scores - ps).cwiseAbs().maxCoeff() > 1e-2f, toString(position));
    }
  }

  void scalingBySqrtDHead_data() {
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("dHead");
    QTest::addColumn<double>("divisor");  // √d_head, written out
    QTest::newRow("qkv: no scaling yet") << Mode::Qkv << 16 << 4 << 16 << 1.0;
    QTest::newRow("scaled d 16") << Mode::Scaled << 16 << 4 << 16 << 4.0;  // heads ignored below multihead
    QTest::newRow("scaled d 64") << Mode::Scaled << 64 << 4 << 64 << 8.0;
    QTest::newRow("multihead 64/4") << Mode::Multihead << 64 << 4 << 16 << 4.0;
    QTest::newRow("multihead 64/16") << Mode::Multihead << 64 << 16 << 4 << 2.0;
    QTest::newRow("causal 36/4") << Mode::Causal << 36 << 4 << 9 << 3.0;
    QTest::newRow("block 50/2") << Mode::Block << 50 << 2 << 25 << 5.0;
  }
  void scalingBySqrtDHead() {
    QFETCH(Mode, mode);
    QFETCH(int, dModel);
    QFETCH(int, heads);
    QFETCH(int, dHead);
    QFETCH(double, divisor);
    ModelConfig c = smallConfig(mode);
    c.dModel = dModel;
    c.heads = heads;
    c.scale = true;
    const BuiltinModel on(c);
    c.scale = false;
    const BuiltinModel off(c);  // same seed: same weights
    QCOMPARE(on.info().dHead, dHead);
    const Trace ton = run(on), toff = run(off);
    // Layer 0 only: later layers see inputs that already differ.
    QCOMPARE(ton.headCount(), toff.headCount());
    for (int h = 0; h < ton.headCount(); ++h) {
      const HeadTrace &a = ton.layers[0].heads[h], &b = toff.layers[0].heads[h];
      QCOMPARE(a.q, b.q);
      QCOMPARE(a.k(), b.k());
      QCOMPARE(a.q.cols(), Eigen::Index(dHead));
      const MatD expected = b.scores.cast<double>() / divisor;
      ATTNLAB_COMPARE_MATRICES(a.scores, expected, 1e-6);
    }
  }

  void parameterCounts_data() {
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<int>("dModel");
    QTest::addColumn<int>("heads");
    QTest::addColumn<long long>("expected");
    QTest::newRow("basic") << Mode::Basic << 64 << 4 << 0LL;
    QTest::newRow("basic d 512") << Mode::Basic << 512 << 8 << 0LL;
    QTest::newRow("qkv d 64: 3k²") << Mode::Qkv << 64 << 4 << 12288LL;
    QTest::newRow("qkv d 10: 3k²") << Mode::Qkv << 10 << 1 << 300LL;
    QTest::newRow("scaled d 64: 3k²") << Mode::Scaled << 64 << 4 << 12288LL;
    QTest::newRow("multihead 64/4: 3k²+k²") << Mode::Multihead << 64 << 4 << 16384LL;
    QTest::newRow("multihead 64/8: 3k²+k²") << Mode::Multihead << 64 << 8 << 16384LL;  // heads do not add any
    QTest::newRow("multihead 64/1: 3k²+k²") << Mode::Multihead << 64 << 1 << 16384LL;
    QTest::newRow("causal 32/2: 3k²+k²") << Mode::Causal << 32 << 2 << 4096LL;
    QTest::newRow("block 64/4: 3k²+k²") << Mode::Block << 64 << 4 << 16384LL;
  }
  void parameterCounts() {
    QFETCH(Mode, mode);
    QFETCH(int, dModel);
    QFETCH(int, heads);
    QFETCH(long long, expected);
    ModelConfig c = smallConfig(mode);
    c.dModel = dModel;
    c.heads = heads;
    c.layers = 1;
    QCOMPARE(attentionParameterCount(c), expected);

    // The count says which matrices the attention uses: changing one it does not count must leave
    // the trace unchanged, changing one it counts must not.
    const BuiltinModel model(c);
    const Trace base = run(model, "a b c d");
    auto runWith = [&](Mat BuiltinLayerWeights::*which) {
      std::vector<BuiltinLayerWeights> w = model.weights();
      w[0].*which = Mat::Constant(dModel, dModel, 0.25f);
      return run(BuiltinModel(c, w), "a b c d").layers[0].attentionOut;
    };
    const long long k2 = static_cast<long long>(dModel) * dModel;
    QCOMPARE(runWith(&BuiltinLayerWeights::wq) != base.layers[0].attentionOut, expected >= 3 * k2);
    QCOMPARE(runWith(&BuiltinLayerWeights::wv) != base.layers[0].attentionOut, expected >= 3 * k2);
    QCOMPARE(runWith(&BuiltinLayerWeights::wo) != base.layers[0].attentionOut, expected == 4 * k2);
  }

  void hugeFiniteInputsGiveNoNaN_data() {
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<bool>("mixedSigns");
    for (Mode m : {Mode::Basic, Mode::Qkv, Mode::Scaled, Mode::Multihead, Mode::Causal, Mode::Block}) {
      QTest::newRow(toString(m)) << m << false;
      QTest::newRow((std::string(toString(m)) + " ±").c_str()) << m << true;
    }
  }
  void hugeFiniteInputsGiveNoNaN() {
    QFETCH(Mode, mode);
    QFETCH(bool, mixedSigns);
    ModelConfig c = smallConfig(mode);
    c.dModel = 8;
    c.heads = 2;
    c.norm = NormPlacement::Post;  // so that the first attention sees the raw huge rows
    const BuiltinModel model(c);
    // Entries of 1e4: scores reach 8·1e8 (far beyond where exp overflows), yet all finite in float.
    Mat x = Mat::Constant(5, 8, 1e4f);
    if (mixedSigns)
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 8; ++j)
          if ((i * 3 + j * 5) % 7 < 3) x(i, j) = -x(i, j);
    const Trace t = model.forwardEmbeddings(x);
    for (const auto& [name, m] : allMatrices(t)) QVERIFY2(m.allFinite(), name.c_str());
    for (const HeadTrace& h : t.layers[0].heads) QVERIFY(h.scores.cwiseAbs().maxCoeff() > 1e6f);  // really extreme
    for (const LayerTrace& lt : t.layers)
      for (const HeadTrace& h : lt.heads)
        for (Eigen::Index i = 0; i < h.attention.rows(); ++i)
          QVERIFY(std::abs(h.attention.row(i).sum() - 1.0f) <= 1e-5f);
  }

  void validationErrors() {
    ModelConfig c = smallConfig(Mode::Block);
    c.dModel = 10;
    c.heads = 4;
    QString msg = inputErrorOf([&] { BuiltinModel m(c); });
    QVERIFY2(msg.contains("divisible") && msg.contains("10") && msg.contains("4"), qPrintable(msg));

    c = smallConfig(Mode::Block);
    c.layers = 0;
    msg = inputErrorOf([&] { BuiltinModel m(c); });
    QVERIFY2(msg.contains("layers") && msg.contains("got 0"), qPrintable(msg));

    c = smallConfig(Mode::Block);
    c.maxTokens = 4;
    const BuiltinModel model(c);
    msg = inputErrorOf([&] { model.forward(model.tokenize("  \t ")); });
    QVERIFY2(msg.contains("no tokens"), qPrintable(msg));
    msg = inputErrorOf([&] { model.forwardEmbeddings(Mat(0, 16)); });
    QVERIFY2(msg.contains("no tokens"), qPrintable(msg));

    msg = inputErrorOf([&] { model.forward(model.tokenize("one two three four five")); });
    QVERIFY2(msg.contains("5 tokens") && msg.contains("at most 4"), qPrintable(msg));
    msg = inputErrorOf([&] { model.forwardEmbeddings(Mat::Zero(5, 16)); });
    QVERIFY2(msg.contains("5 tokens") && msg.contains("at most 4"), qPrintable(msg));
    QVERIFY(inputErrorOf([&] { model.forward(model.tokenize("one two three four")); }).isEmpty());  // the limit

    msg = inputErrorOf([&] { model.forwardEmbeddings(Mat::Zero(3, 17)); });
    QVERIFY2(msg.contains("17") && msg.contains("d_model"), qPrintable(msg));

    // Given weights must fit the config.
    std::vector<BuiltinLayerWeights> w = model.weights();
    w[1].wk = Mat::Zero(16, 15);
    msg = inputErrorOf([&] { BuiltinModel m(c, w); });
    QVERIFY2(msg.contains("wk") && msg.contains("16x15"), qPrintable(msg));
    w.pop_back();
    msg = inputErrorOf([&] { BuiltinModel m(c, w); });
    QVERIFY2(msg.contains("2 layers"), qPrintable(msg));
  }

  void determinism() {
    ModelConfig c;  // the default shape
    const BuiltinModel a(c), b(c);
    QCOMPARE(a.weights().size(), b.weights().size());
    for (std::size_t l = 0; l < a.weights().size(); ++l) {
      const BuiltinLayerWeights &wa = a.weights()[l], &wb = b.weights()[l];
      QCOMPARE(wa.wq, wb.wq);
      QCOMPARE(wa.wk, wb.wk);
      QCOMPARE(wa.wv, wb.wv);
      QCOMPARE(wa.wo, wb.wo);
      QCOMPARE(wa.w1, wb.w1);
      QCOMPARE(wa.w2, wb.w2);
    }
    const Trace ta = run(a), tb = run(b);
    const auto ma = allMatrices(ta), mb = allMatrices(tb);
    QCOMPARE(ma.size(), mb.size());
    for (std::size_t i = 0; i < ma.size(); ++i) QVERIFY2(ma[i].second == mb[i].second, ma[i].first.c_str());

    c.seed = 43;
    const BuiltinModel other(c);
    QVERIFY(other.weights()[0].wq != a.weights()[0].wq);
    QVERIFY(other.weights()[1].w2 != a.weights()[1].w2);
    const Trace to = run(other);
    QVERIFY(to.embeddings != ta.embeddings);  // the word vectors hang on the seed too
    QVERIFY(to.layers.back().residualOut != ta.layers.back().residualOut);
    // The same X through a differently seeded model: only the weights differ, and that shows.
    QVERIFY(other.forwardEmbeddings(ta.embeddings).layers[0].attentionOut != ta.layers[0].attentionOut);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestBuiltinEngine)
#include "test_builtin_engine.moc"
