// Attention variants: both paths agree, rank bounds, the exact stabiliser, literal cases, settings
// validation and their JSON round trip.
#include <QtTest>

#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/session/params_json.h"
#include "core/spectra/attention_metrics.h"
#include "core/variants/linear_attention.h"
#include "core/variants/variant_analysis.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

Q_DECLARE_METATYPE(attnlab::AttentionMask)
Q_DECLARE_METATYPE(Eigen::MatrixXd)

namespace {

MatD gaussian(Eigen::Index rows, Eigen::Index cols, uint64_t seed, double sigma = 1.0) {
  Rng rng(seed);
  MatD m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) m(i, j) = sigma * rng.normal();
  return m;
}

AttentionMask mask(bool causal, int window) {
  AttentionMask m;
  m.causal = causal;
  m.window = window;
  return m;
}

VariantSettings settingsWithFeatures(int m) {
  VariantSettings s;
  s.features = m;
  return s;
}

}  // namespace

class TestVariants : public QObject {
  Q_OBJECT
 private slots:
  void pathsAgree_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<int>("n");
    QTest::addColumn<AttentionMask>("mask");
    QTest::addColumn<double>("tol");
    const QStringList names{"softmax",     "softmax-unscaled",   "linear-elu",    "linear-exp",
                            "linear-relu", "performer-positive", "performer-trig"};
    const std::vector<std::pair<const char*, AttentionMask>> masks{{"full", mask(false, -1)},
                                                                   {"causal", mask(true, -1)},
                                                                   {"window0", mask(false, 0)},
                                                                   {"window2", mask(false, 2)},
                                                                   {"causal+window3", mask(true, 3)}};
    for (const QString& v : names)
      for (const auto& [mname, m] : masks)
        for (int n : {1, 7, 130})  // 130 crosses the causal path's 64-row blocks
          QTest::addRow("%s %s n=%d", qPrintable(v), mname, n) << v << n << m << 1e-9;
  }
  void pathsAgree() {
    QFETCH(QString, variant);
    QFETCH(int, n);
    QFETCH(AttentionMask, mask);
    QFETCH(double, tol);
    const MatD q = gaussian(n, 8, 1), k = gaussian(n, 8, 2), v = gaussian(n, 5, 3);
    const VariantPtr var = makeVariant(variant.toStdString(), settingsWithFeatures(256));
    const MatD a = var->attention(q, k, mask);
    QCOMPARE(a.rows(), Eigen::Index(n));
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        if (!mask.allows(i, j)) QCOMPARE(a(i, j), 0.0);
    const MatD explicitOut = a * v;
    const MatD efficientOut = var->output(q, k, v, mask);
    ATTNLAB_COMPARE_MATRICES(efficientOut, explicitOut, tol);
  }

  void softmaxVariantMatchesTheModelsHead() {
    // The trace's own attention (float, blocks.h softmax) and the variant's (double) are one formula.
    const MatD q = gaussian(9, 4, 5), k = gaussian(9, 4, 6);
    const MatD a = SoftmaxAttention(true, 1.0).attention(q, k, mask(true, -1));
    MatD s = q * k.transpose() / 2.0;  // √4 = 2
    for (int i = 0; i < 9; ++i)
      for (int j = i + 1; j < 9; ++j) s(i, j) = -INFINITY;
    for (int i = 0; i < 9; ++i) {
      const double mx = s.row(i).maxCoeff();
      s.row(i) = (s.row(i).array() - mx).exp();
      s.row(i) /= s.row(i).sum();
    }
    ATTNLAB_COMPARE_MATRICES(a, s, 1e-14);
  }

  void literalCases_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<MatD>("q");
    QTest::addColumn<MatD>("k");
    QTest::addColumn<MatD>("expected");
    const double e = std::exp(1.0);
    MatD q(2, 1), k(2, 1), a(2, 2);
    q << 1, 0;
    k << 1, 0;
    a << e / (e + 1), 1 / (e + 1), 0.5, 0.5;
    QTest::newRow("softmax d=1") << "softmax" << q << k << a;
    q << 0, -1;
    a << 2.0 / 3, 1.0 / 3, 2.0 / 3, 1.0 / 3;  // φ(q) = (1, e⁻¹), φ(k) = (2, 1): rows proportional
    QTest::newRow("linear-elu") << "linear-elu" << q << k << MatD(a);
    q << 1, -1;
    k << 2, 1;
    a << 2.0 / 3, 1.0 / 3, 0, 0;  // relu(−1) = 0: no similarity, the row stays zero
    QTest::newRow("linear-relu zero row") << "linear-relu" << q << k << MatD(a);
    q << 1, 0;
    k << 0, std::log(3.0);
    a << 1 / (1 + 3.0), 3 / (1 + 3.0), 0.25, 0.75;  // φ = exp: e^{q+k} ∝ e^{k}
    QTest::newRow("linear-exp") << "linear-exp" << q << k << MatD(a);
  }
  void literalCases() {
    QFETCH(QString, variant);
    QFETCH(MatD, q);
    QFETCH(MatD, k);
    QFETCH(MatD, expected);
    const MatD a = makeVariant(variant.toStdString(), VariantSettings{})->attention(q, k, AttentionMask{});
    ATTNLAB_COMPARE_MATRICES(a, expected, 1e-14);
  }

  void rankBounds_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<int>("features");
    QTest::addColumn<AttentionMask>("mask");
    QTest::addColumn<int>("minRank");
    QTest::addColumn<int>("maxRank");
    // n = 48 tokens, d_head = 6.
    QTest::newRow("linear-elu ≤ d") << "linear-elu" << 64 << mask(false, -1) << 1 << 6;
    QTest::newRow("linear-exp ≤ d") << "linear-exp" << 64 << mask(false, -1) << 1 << 6;
    QTest::newRow("linear-relu ≤ d") << "linear-relu" << 64 << mask(false, -1) << 1 << 6;
    QTest::newRow("performer positive ≤ m") << "performer-positive" << 5 << mask(false, -1) << 1 << 5;
    QTest::newRow("performer trig ≤ 2m") << "performer-trig" << 5 << mask(false, -1) << 1 << 10;
    QTest::newRow("softmax full rank") << "softmax" << 64 << mask(false, -1) << 48 << 48;
    QTest::newRow("softmax causal full rank") << "softmax" << 64 << mask(true, -1) << 48 << 48;
    QTest::newRow("softmax banded full rank") << "softmax" << 64 << mask(false, 2) << 48 << 48;
    QTest::newRow("linear-elu causal full rank") << "linear-elu" << 64 << mask(true, -1) << 48 << 48;
    QTest::newRow("linear-elu banded full rank") << "linear-elu" << 64 << mask(false, 2) << 48 << 48;
    QTest::newRow("linear-exp banded full rank") << "linear-exp" << 64 << mask(false, 1) << 48 << 48;
    QTest::newRow("window 0 is the identity") << "linear-relu" << 64 << mask(false, 0) << 0 << 48;
  }
  void rankBounds() {
    QFETCH(QString, variant);
    QFETCH(int, features);
    QFETCH(AttentionMask, mask);
    QFETCH(int, minRank);
    QFETCH(int, maxRank);
    const MatD q = gaussian(48, 6, 11), k = gaussian(48, 6, 12);
    const MatD a = makeVariant(variant.toStdString(), settingsWithFeatures(features))->attention(q, k, mask);
    const int r = numericalRank(a);
    QVERIFY2(r >= minRank && r <= maxRank,
             qPrintable(QString("rank %1 not in [%2, %3]").arg(r).arg(minRank).arg(maxRank)));
  }

  void stabiliserIsExact_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<AttentionMask>("mask");
    QTest::addColumn<double>("tol");
    for (const char* v : {"performer-positive", "performer-trig", "linear-exp"}) {
      QTest::addRow("%s full", v) << QString(v) << mask(false, -1) << 1e-12;
      QTest::addRow("%s causal", v) << QString(v) << mask(true, -1) << 1e-12;
      QTest::addRow("%s window", v) << QString(v) << mask(false, 3) << 1e-12;
    }
  }
  void stabiliserIsExact() {
    QFETCH(QString, variant);
    QFETCH(AttentionMask, mask);
    QFETCH(double, tol);
    const MatD q = gaussian(20, 8, 21), k = gaussian(20, 8, 22), v = gaussian(20, 4, 23);
    VariantSettings on = settingsWithFeatures(128), off = on;
    on.stabilize = true;
    on.epsilon = 0;
    off.stabilize = false;
    const VariantPtr a = makeVariant(variant.toStdString(), on), b = makeVariant(variant.toStdString(), off);
    ATTNLAB_COMPARE_MATRICES(a->attention(q, k, mask), b->attention(q, k, mask), tol);
    ATTNLAB_COMPARE_MATRICES(a->output(q, k, v, mask), b->output(q, k, v, mask), tol);
  }

  void stabiliserAvoidsOverflow() {
    // Scores of ~900: e^{900} overflows a double; the max subtraction keeps φ = exp finite.
    const MatD q = gaussian(6, 4, 31, 30.0), k = gaussian(6, 4, 32, 30.0);
    const MatD a = LinearAttention(FeatureMap::Exp, true).attention(q, k, AttentionMask{});
    QVERIFY(a.allFinite());
    QVERIFY(std::abs(a.row(0).sum() - 1.0) < 1e-12);
  }

  void epsilonIsVisible() {
    const MatD q = gaussian(12, 8, 41), k = gaussian(12, 8, 42);
    VariantSettings plain = settingsWithFeatures(32), withEps = plain;
    withEps.epsilon = 1e-3;
    const MatD a = makeVariant("performer", plain)->attention(q, k, AttentionMask{});
    const MatD b = makeVariant("performer", withEps)->attention(q, k, AttentionMask{});
    QVERIFY(relativeFrobeniusError(b, a) > 1e-6);  // not exact: that is why it is optional
    QVERIFY(QString::fromStdString(makeVariant("performer", withEps)->describe()).contains("ε"));
  }

  void comparisonMetrics() {
    const MatD q = gaussian(10, 4, 51), k = gaussian(10, 4, 52), v = gaussian(10, 4, 53);
    VariantSettings s;
    s.names = {"softmax", "linear-elu", "performer"};
    const VariantComparison c = compareVariants(q, k, v, s, false);
    QCOMPARE(int(c.variants.size()), 3);
    QCOMPARE(c.variants[0].metrics.relError, 0.0);  // softmax against itself
    QCOMPARE(c.variants[0].metrics.outputMse, 0.0);
    QVERIFY(c.variants[1].metrics.relError > 0);
    QCOMPARE(c.variants[1].metrics.rank, numericalRank(c.variants[1].attention));
    QVERIFY(c.variants[1].metrics.entropy > c.variants[0].metrics.entropy);  // linear is denser
  }

  void badParametersGiveClearMessages_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("expected");
    QTest::newRow("m = 0") << "features=0"
                           << "variants.features";
    QTest::newRow("m too large") << "features=5000"
                                 << "between 1 and 4096";
    QTest::newRow("negative window") << "window=-1"
                                     << "variants.window must be ≥ 0";
    QTest::newRow("NaN temperature") << "temperature=nan"
                                     << "variants.temperature must be a positive finite";
    QTest::newRow("zero temperature") << "temperature=0"
                                      << "variants.temperature";
    QTest::newRow("negative epsilon") << "epsilon=-1"
                                      << "variants.epsilon";
    QTest::newRow("unknown name") << "names=foo"
                                  << "unknown variant 'foo'";
    QTest::newRow("no names") << "names="
                              << "variants.names is empty";
    QTest::newRow("top-k 0") << "top_k=0"
                             << "variants.top_k";
  }
  void badParametersGiveClearMessages() {
    QFETCH(QString, field);
    QFETCH(QString, expected);
    VariantSettings s;
    const QString key = field.section('=', 0, 0), value = field.section('=', 1);
    if (key == "features") s.features = value.toInt();
    if (key == "window") s.window = value.toInt();
    if (key == "temperature") s.temperature = value == "nan" ? std::nan("") : value.toDouble();
    if (key == "epsilon") s.epsilon = value.toDouble();
    if (key == "names") s.names = value.isEmpty() ? std::vector<std::string>{} : std::vector{value.toStdString()};
    if (key == "top_k") s.topK = value.toInt();
    try {
      validate(s);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
    // The comparison refuses the same settings instead of computing garbage.
    QVERIFY_THROWS_EXCEPTION(InputError,
                             compareVariants(MatD::Ones(2, 2), MatD::Ones(2, 2), MatD::Ones(2, 2), s, false));
  }

  void variantListParsing() {
    QCOMPARE(parseVariantList(" softmax, performer-trig,softmax").size(), std::size_t(2));
    try {
      parseVariantList("softmax,linear-tanh");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("linear-tanh") && QString(e.what()).contains("linear-elu"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, parseFeatureKind("cosine"));
  }

  void settingsJsonRoundTrip() {
    Params p;
    p.variants.names = {"softmax", "performer-trig"};
    p.variants.temperature = 0.5;
    p.variants.features = 300;
    p.variants.featureKind = FeatureKind::Trig;
    p.variants.orthogonal = true;
    p.variants.featureSeed = 77;
    p.variants.stabilize = false;
    p.variants.epsilon = 1e-6;
    p.variants.window = 3;
    p.variants.causal = true;
    p.variants.topK = 4;
    p.variants.redraws = 5;
    const nlohmann::json j = toJson(p);
    const Params back = paramsFromJson(j);
    QCOMPARE(QString::fromStdString(toJson(back).dump()), QString::fromStdString(j.dump()));
    QVERIFY(back.variants.window && *back.variants.window == 3);
    nlohmann::json none = j;
    none["variants"]["window"] = nullptr;
    QVERIFY(!paramsFromJson(none).variants.window);
  }

  void settingsJsonErrorsNameTheField_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("m = 0") << R"({"variants": {"features": 0}})"
                           << "params: variants.features";
    QTest::newRow("window") << R"({"variants": {"window": -2}})"
                            << "params: variants.window";
    QTest::newRow("kind") << R"({"variants": {"feature_kind": "cos"}})"
                          << "params: variants.feature_kind";
    QTest::newRow("names type") << R"({"variants": {"names": "softmax"}})"
                                << "params: variants.names";
    QTest::newRow("temperature type") << R"({"variants": {"temperature": "hot"}})"
                                      << "variants.temperature";
  }
  void settingsJsonErrorsNameTheField() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    try {
      paramsFromJson(parseJsonText(json.toStdString(), "test"));
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestVariants)
#include "test_variants.moc"
