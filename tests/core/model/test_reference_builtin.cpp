// The built-in transformer's forward pass against an independent float64 PyTorch implementation
// (tests/reference/make_builtin_reference.py), one row per case of its table: every rung of the
// ladder and every block switch. The reference file holds the config, X [n, d], the weights of
// every layer and the expected trace; the engine runs the same numbers in float.
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/builtin_model.h"
#include "core/session/params_json.h"
#include "tests/core/model/builtin_reference_json.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
using namespace attnlab::test;
using nlohmann::json;

namespace {

// Relative to max(1, |expected|), as fuzzy_compare.h measures it. The reference's inputs are exact
// float32 values, so this only has to absorb the engine's float arithmetic.
constexpr double kTolerance = 1e-5;

}  // namespace

class TestReferenceBuiltin : public QObject {
  Q_OBJECT

  json reference_;

  /// Compares one traced matrix with the reference; `where` names it in the failure message.
  void compare(const Mat& got, const json& wantJson, const std::string& where, double& worst, std::string& worstAt) {
    const MatD want = matrixFromJson<MatD>(wantJson);
    if (got.rows() == want.rows() && got.cols() == want.cols()) {
      const double err = maxRelativeError(got, want);
      if (err >= worst) {
        worst = err;
        worstAt = where;
      }
    }
    std::string why;
    if (!attnlab::test::matricesClose(got, want, kTolerance, &why)) qWarning("mismatch in %s", where.c_str());
    ATTNLAB_COMPARE_MATRICES(got, want, kTolerance);
  }

 private slots:
  void initTestCase() {
    const std::string path = std::string(ATTNLAB_TEST_DATA) + "/reference/builtin_forward_reference.json";
    std::ifstream in(path);
    QVERIFY2(in.good(), qPrintable(QString::fromStdString("cannot open " + path)));
    reference_ = json::parse(in);
    QCOMPARE(QString::fromStdString(reference_.at("schema").get<std::string>()),
             QStringLiteral("attnlab.builtin_reference/1"));
    QVERIFY(!reference_.at("cases").empty());
  }

  /// The table must keep covering every rung and every switch if the generator is edited.
  void coversEveryRungAndSwitch() {
    std::set<std::string> seen;
    int biggestN = 0;
    for (const json& c : reference_.at("cases")) {
      const ModelConfig cfg = paramsFromJson(json{{"model", c.at("config")}}).model;
      const EffectiveStructure s = resolve(cfg);
      seen.insert(std::string("mode ") + toString(cfg.mode));
      if (s.block) {
        seen.insert(std::string("norm ") + toString(cfg.norm));
        seen.insert(std::string("activation ") + toString(cfg.activation));
        seen.insert(std::string("skip ") + (cfg.skip ? "on" : "off"));
        seen.insert(std::string("mlp ") + (cfg.mlp ? "on" : "off"));
      }
      if (cfg.mode >= Mode::Scaled) seen.insert(std::string("scale ") + (cfg.scale ? "on" : "off"));
      if (cfg.mode >= Mode::Multihead && !cfg.scale) seen.insert("multihead scale off");
      if (cfg.causal && cfg.mode != Mode::Causal) seen.insert("causal switch");
      if (cfg.dModel == 64 && cfg.heads == 4 && cfg.layers == 2 && c.at("x").size() == 6) seen.insert("default shape");
      biggestN = std::max(biggestN, static_cast<int>(c.at("x").size()));
    }
    for (const char* want :
         {"mode basic",    "mode qkv",     "mode scaled", "mode multihead",  "mode causal",     "mode block",
          "norm pre",      "norm post",    "norm none",   "activation gelu", "activation relu", "skip on",
          "skip off",      "mlp on",       "mlp off",     "scale on",        "scale off",       "multihead scale off",
          "causal switch", "default shape"})
      QVERIFY2(seen.count(want), want);
    QVERIFY(biggestN >= 33);
  }

  void matchesReference_data() {
    QTest::addColumn<int>("index");
    const json& cases = reference_.at("cases");
    for (std::size_t i = 0; i < cases.size(); ++i)
      QTest::newRow(cases[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
  }

  void matchesReference() {
    QFETCH(int, index);
    const json& c = reference_.at("cases").at(static_cast<std::size_t>(index));
    const ModelConfig cfg = paramsFromJson(json{{"model", c.at("config")}}).model;
    // paramsFromJson ignores unknown fields: a misspelt one would silently run the default instead.
    const json parsedBack = toJson(cfg);
    for (const auto& [key, value] : c.at("config").items())
      QVERIFY2(parsedBack.contains(key) && parsedBack.at(key) == value, key.c_str());
    std::vector<BuiltinLayerWeights> weights;
    for (const json& w : c.at("weights")) weights.push_back(weightsFromJson(w));
    const BuiltinModel model(cfg, weights);
    const Mat x = matrixFromJson<Mat>(c.at("x"));  // [n, d]
    const Trace t = model.forwardEmbeddings(x);

    const json& layers = c.at("expected");
    QCOMPARE(t.layerCount(), static_cast<int>(layers.size()));
    QCOMPARE(t.causal, cfg.causal || cfg.mode == Mode::Causal);
    QCOMPARE(t.embeddings, x);
    double worst = 0;
    std::string worstAt;
    for (int l = 0; l < t.layerCount(); ++l) {
      const LayerTrace& lt = t.layers[l];
      const json& want = layers[l];
      const std::string at = "layer " + std::to_string(l) + " ";
      // The layer's input is the previous layer's output, bit for bit.
      QCOMPARE(t.layerInput(l), l == 0 ? x : t.layers[l - 1].residualOut);
      QCOMPARE(static_cast<int>(lt.heads.size()), static_cast<int>(want.at("heads").size()));
      for (int h = 0; h < static_cast<int>(lt.heads.size()); ++h) {
        const HeadTrace& ht = lt.heads[h];
        const json& wh = want.at("heads")[h];
        const std::string ah = at + "head " + std::to_string(h) + " ";
        const Mat output = lt.headOutput(h);
        for (const auto& [name, got] : {std::pair<const char*, const Mat*>{"q", &ht.q},
                                        {"k", &ht.k()},
                                        {"v", &ht.v()},
                                        {"scores", &ht.scores},
                                        {"attention", &ht.attention},
                                        {"output", &output}}) {
          compare(*got, wh.at(name), ah + name, worst, worstAt);
          if (QTest::currentTestFailed()) return;
        }
      }
      compare(lt.concat, want.at("concat"), at + "concat", worst, worstAt);
      if (QTest::currentTestFailed()) return;
      compare(lt.attentionOut, want.at("attention_out"), at + "attention_out", worst, worstAt);
      if (QTest::currentTestFailed()) return;
      // mlp_out is present exactly when the layer has an MLP sub-block.
      QCOMPARE(lt.mlpOut.size() != 0, want.contains("mlp_out"));
      if (want.contains("mlp_out")) {
        compare(lt.mlpOut, want.at("mlp_out"), at + "mlp_out", worst, worstAt);
        if (QTest::currentTestFailed()) return;
      }
      compare(lt.residualOut, want.at("residual_out"), at + "residual_out", worst, worstAt);
      if (QTest::currentTestFailed()) return;
    }
    qInfo("%-24s max relative error %.3g (%s)", c.at("name").get<std::string>().c_str(), worst, worstAt.c_str());
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestReferenceBuiltin)
#include "test_reference_builtin.moc"
