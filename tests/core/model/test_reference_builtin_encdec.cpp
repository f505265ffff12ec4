// Rung 7 (the built-in model as an encoder–decoder, core/model/builtin_encdec.h) against the float64 PyTorch
// reference's "encdec_cases" (tests/reference/make_builtin_reference.py, written from the rung's definition): every
// encoder map, decoder self map, cross map and both stacks' outputs. Also: its encoder is rung 6 without a mask, and
// what it refuses.
#include <QtTest>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/base/errors.h"
#include "core/model/builtin_encdec.h"
#include "core/session/params_json.h"
#include "tests/core/model/builtin_reference_json.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
using namespace attnlab::test;
using nlohmann::json;

namespace {

// The brief's bar: 1e-4 relative to max(1, |expected|); the engine's float arithmetic stays far below (printed).
constexpr double kTolerance = 1e-4;

struct Worst {
  double err = 0;
  std::string at;
};

std::vector<std::string> words(const BuiltinModel& m, const std::string& text) {
  std::vector<std::string> w;
  for (const Token& t : m.tokenize(text).tokens) w.push_back(t.text);
  return w;
}

}  // namespace

class TestReferenceBuiltinEncDec : public QObject {
  Q_OBJECT

  json cases_;

  void compare(const Mat& got, const json& wantJson, const std::string& where, Worst& worst) {
    const MatD want = matrixFromJson<MatD>(wantJson);
    QVERIFY2(got.rows() == want.rows() && got.cols() == want.cols(), where.c_str());
    const double err = maxRelativeError(got, want);
    if (err >= worst.err) worst = {err, where};
    if (err > kTolerance) qWarning("mismatch in %s", where.c_str());
    ATTNLAB_COMPARE_MATRICES(got, want, kTolerance);
  }

  /// One layer's heads (q, k, v, scores, attention, output) and the named matrices.
  void compareHeads(const std::vector<HeadTrace>& heads, const Mat& concat, const json& want, const std::string& at,
                    Worst& worst) {
    QCOMPARE(static_cast<int>(heads.size()), static_cast<int>(want.at("heads").size()));
    const Eigen::Index dh = concat.cols() / static_cast<Eigen::Index>(heads.size());
    for (int h = 0; h < static_cast<int>(heads.size()); ++h) {
      const HeadTrace& ht = heads[h];
      const json& wh = want.at("heads")[h];
      const std::string ah = at + "head " + std::to_string(h) + " ";
      const Mat output = concat.middleCols(h * dh, dh);
      for (const auto& [name, got] : {std::pair<const char*, const Mat*>{"q", &ht.q},
                                      {"k", &ht.k()},
                                      {"v", &ht.v()},
                                      {"scores", &ht.scores},
                                      {"attention", &ht.attention},
                                      {"output", &output}}) {
        compare(*got, wh.at(name), ah + name, worst);
        if (QTest::currentTestFailed()) return;
      }
    }
    compare(concat, want.at("concat"), at + "concat", worst);
  }

  void compareStack(const Trace& t, const json& want, const std::string& stack, Worst& worst) {
    QCOMPARE(t.layerCount(), static_cast<int>(want.size()));
    for (int l = 0; l < t.layerCount(); ++l) {
      const LayerTrace& lt = t.layers[l];
      const std::string at = stack + " layer " + std::to_string(l) + " ";
      compareHeads(lt.heads, lt.concat, want[l], at, worst);
      if (QTest::currentTestFailed()) return;
      compare(lt.attentionOut, want[l].at("attention_out"), at + "attention_out", worst);
      if (QTest::currentTestFailed()) return;
      QCOMPARE(lt.mlpOut.size() != 0, want[l].contains("mlp_out"));
      if (want[l].contains("mlp_out")) compare(lt.mlpOut, want[l].at("mlp_out"), at + "mlp_out", worst);
      if (QTest::currentTestFailed()) return;
      compare(lt.residualOut, want[l].at("residual_out"), at + "residual_out", worst);
      if (QTest::currentTestFailed()) return;
    }
  }

 private slots:
  void initTestCase() {
    const std::string path = std::string(ATTNLAB_TEST_DATA) + "/reference/builtin_forward_reference.json";
    std::ifstream in(path);
    QVERIFY2(in.good(), qPrintable(QString::fromStdString("cannot open " + path)));
    cases_ = json::parse(in).at("encdec_cases");
    QVERIFY(cases_.size() >= 2);
  }

  /// The table keeps pre and post placement, no skip, no MLP, several heads and 2 layers.
  void coversPlacements() {
    std::set<std::string> seen;
    for (const json& c : cases_) {
      const ModelConfig cfg = paramsFromJson(json{{"model", c.at("config")}}).model;
      QCOMPARE(cfg.mode, Mode::EncDec);
      seen.insert(std::string("norm ") + toString(cfg.norm));
      if (!cfg.skip) seen.insert("skip off");
      if (!cfg.mlp) seen.insert("mlp off");
      if (cfg.heads > 1 && cfg.layers == 2) seen.insert("heads and layers");
      if (cfg.causal) seen.insert("causal switch");
    }
    for (const char* want :
         {"norm pre", "norm post", "norm none", "skip off", "mlp off", "heads and layers", "causal switch"})
      QVERIFY2(seen.count(want), want);
  }

  void matchesReference_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases_.size(); ++i)
      QTest::newRow(cases_[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
  }

  void matchesReference() {
    QFETCH(int, index);
    const json& c = cases_.at(static_cast<std::size_t>(index));
    const ModelConfig cfg = paramsFromJson(json{{"model", c.at("config")}}).model;
    const json parsedBack = toJson(cfg);  // a misspelt field would silently run the default
    for (const auto& [key, value] : c.at("config").items())
      QVERIFY2(parsedBack.contains(key) && parsedBack.at(key) == value, key.c_str());
    std::vector<BuiltinLayerWeights> weights;
    for (const json& w : c.at("weights")) weights.push_back(weightsFromJson(w));
    const BuiltinEncDec model(cfg, weights);
    const Mat xs = matrixFromJson<Mat>(c.at("x_source")), xt = matrixFromJson<Mat>(c.at("x_target"));
    const EncDecTrace t = model.forwardEmbeddings(xs, xt);
    const json& want = c.at("expected");

    QVERIFY(!t.encoder.causal);
    QVERIFY(t.decoder.causal);
    QCOMPARE(t.encoder.embeddings, xs);
    QCOMPARE(t.decoder.embeddings, xt);
    Worst worst;
    compareStack(t.encoder, want.at("encoder"), "encoder", worst);
    if (QTest::currentTestFailed()) return;
    compareStack(t.decoder, want.at("decoder"), "decoder", worst);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(static_cast<int>(t.cross.size()), static_cast<int>(want.at("cross").size()));
    for (std::size_t l = 0; l < t.cross.size(); ++l) {
      const CrossLayerTrace& cl = t.cross[l];
      const json& wl = want.at("cross")[l];
      const std::string at = "cross layer " + std::to_string(l) + " ";
      for (const HeadTrace& h : cl.heads) {  // target rows × source columns
        QCOMPARE(h.attention.rows(), xt.rows());
        QCOMPARE(h.attention.cols(), xs.rows());
      }
      compareHeads(cl.heads, cl.concat, wl, at, worst);
      if (QTest::currentTestFailed()) return;
      compare(cl.attentionOut, wl.at("attention_out"), at + "attention_out", worst);
      compare(cl.residualOut, wl.at("residual_out"), at + "residual_out", worst);
      if (QTest::currentTestFailed()) return;
    }
    compare(t.encoderOut, want.at("encoder_out"), "encoder_out", worst);
    compare(t.decoderOut, want.at("decoder_out"), "decoder_out", worst);
    QCOMPARE(t.logits.size(), Eigen::Index(0));  // no output head
    qInfo("%-30s max relative error %.3g (%s)", c.at("name").get<std::string>().c_str(), worst.err, worst.at.c_str());
  }

  /// The encoder is rung 6 with the causal switch off, on the same words: the same numbers, bit for bit — also when
  /// the session's switch is on (rung 7 ignores it) and for every placement.
  void encoderIsRungSixWithoutMask_data() {
    QTest::addColumn<QString>("norm");
    QTest::addColumn<bool>("causalSwitch");
    QTest::newRow("pre") << "pre" << false;
    QTest::newRow("post, switch on") << "post" << true;
    QTest::newRow("none") << "none" << false;
  }
  void encoderIsRungSixWithoutMask() {
    QFETCH(QString, norm);
    QFETCH(bool, causalSwitch);
    ModelConfig c;
    c.mode = Mode::EncDec;
    c.norm = parseNorm(norm.toStdString());
    c.causal = causalSwitch;
    c.seed = 7;
    ModelConfig six = c;
    six.mode = Mode::Block;
    six.causal = false;
    const BuiltinEncDec model(c);
    const BuiltinModel rung6(six);
    const std::string source = "the cat sat on the mat";
    const Trace want = rung6.forward(rung6.tokenize(source));
    const EncDecTrace got = model.forward(words(rung6, source), words(rung6, "le chat"));
    QCOMPARE(got.encoder.tokens, want.tokens);
    QCOMPARE(got.encoder.layerCount(), want.layerCount());
    QCOMPARE(got.encoder.embeddings, want.embeddings);
    for (int l = 0; l < want.layerCount(); ++l) {
      for (int h = 0; h < want.headCount(); ++h)
        QCOMPARE(got.encoder.layers[l].heads[h].attention, want.layers[l].heads[h].attention);
      QCOMPARE(got.encoder.layers[l].residualOut, want.layers[l].residualOut);
    }
    QCOMPARE(got.encoderOut, want.layers.back().residualOut);
    // The decoder's own mask: its self maps are lower triangular, its cross maps rows of a distribution.
    const Mat& a = got.decoder.layers[0].heads[0].attention;
    QCOMPARE(a(0, 1), 0.0f);
    QVERIFY(std::abs(got.cross[0].heads[0].attention.row(0).sum() - 1.0f) < 1e-5f);
    QVERIFY(got.cross[0].heads[0].attention(0, 5) > 0.0f);  // the last source word is seen
  }

  /// What rung 7 refuses, with messages that say what to type.
  void refusesEmptyTexts() {
    ModelConfig c;
    c.mode = Mode::EncDec;
    const BuiltinEncDec model(c);
    try {
      model.forward({"the", "cat"}, {});
      QFAIL("an empty target ran");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("type a target text") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, model.forward({}, {"le"}));
    QVERIFY_THROWS_EXCEPTION(InputError, model.forwardEmbeddings(Mat::Zero(2, c.dModel), Mat::Zero(2, c.dModel + 1)));
    ModelConfig small = c;
    small.maxTokens = 3;
    QVERIFY_THROWS_EXCEPTION(InputError, BuiltinEncDec(small).forward({"a", "b"}, {"a", "b", "c", "d"}));
  }

  void modeNameRoundTrips() {
    QCOMPARE(std::string(toString(Mode::EncDec)), std::string("encdec"));
    QCOMPARE(parseMode("encdec"), Mode::EncDec);
    ModelConfig c;
    c.mode = Mode::EncDec;
    c.causal = true;
    const EffectiveStructure s = resolve(c);
    QVERIFY(s.block && s.skip && s.mlp && !s.causal);
    QCOMPARE(attentionParameterCount(c), 4LL * 64 * 64);  // cross-attention reuses Wq, Wk, Wv, Wo
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestReferenceBuiltinEncDec)
#include "test_reference_builtin_encdec.moc"
