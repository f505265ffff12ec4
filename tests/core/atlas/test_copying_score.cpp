// The copying score of the heads' OV circuits (core/atlas/copying_score.h) against the eigenvalues of the explicit
// vocab × vocab matrices computed in float64 by tests/reference/make_atlas_reference.py (GPT-2 fixtures and the
// GQA decoder, whose query heads share kv heads), and the probe scores of gpt2_tiny against the same script's
// attention; the built-in model has none (NaN, and a note in the atlas).
#include <QtTest>

#include <cmath>

#include "core/atlas/atlas_builder.h"
#include "core/atlas/copying_score.h"
#include "core/atlas/probe_scores.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/builtin_model.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string testData(const std::string& rel) { return std::string(ATTNLAB_TEST_DATA) + "/" + rel; }

nlohmann::json reference() { return readJsonFile(testData("reference/atlas_reference.json")); }

/// Largest |got − expected| over a grid.
double worst(const HeadGrid& got, const nlohmann::json& expected) {
  double w = 0;
  for (std::size_t l = 0; l < got.size(); ++l)
    for (std::size_t h = 0; h < got[l].size(); ++h) w = std::max(w, std::abs(got[l][h] - expected[l][h].get<double>()));
  return w;
}

}  // namespace

class TestCopyingScore : public QObject {
  Q_OBJECT

 private slots:
  void copyingMatchesTheExplicitCircuit() {
    for (const auto& c : reference()["copying"]) {
      const std::string dir = c["model"].get<std::string>();
      const auto m = loadCheckpoint(testData(dir));
      const HeadGrid got = copyingScores(*m);
      QCOMPARE(got.size(), c["scores"].size());
      QVERIFY2(worst(got, c["scores"]) < 1e-4, dir.c_str());
    }
  }

  void probeScoresMatchTheReferenceAttention() {
    const nlohmann::json r = reference()["probe"];
    const auto m = loadCheckpoint(testData("reference/" + r["model"].get<std::string>()));
    AtlasProbe p;
    p.ids = r["ids"].get<std::vector<int>>();
    for (int id : p.ids) p.tokens.push_back(m->vocabularyPiece(id));
    p.repeat = r["repeat"].get<int>();
    p.offset = r["offset"].get<int>();
    TokenizedText text;
    for (std::size_t i = 0; i < p.ids.size(); ++i) text.tokens.push_back(Token{p.tokens[i]});
    text.ids = p.ids;
    const auto scores = probeScores(m->forward(text), p);
    for (const auto& [name, grid] : r["scores"].items()) QVERIFY2(worst(scores.at(name), grid) < 1e-5, name.c_str());
  }

  void builtinModelHasNoCopyingScore() {
    BuiltinModel builtin(ModelConfig{});
    const HeadGrid g = copyingScores(builtin);
    QCOMPARE(static_cast<int>(g.size()), builtin.info().layers);
    QVERIFY(std::isnan(g[0][0]));
    const HeadAtlas atlas = buildProbeAtlas(builtin, {4, 0});
    QVERIFY(std::isnan(atlas.metrics.at("copying")[0][0]));
    QVERIFY(!atlas.notes.empty());
  }

  void cyclicFormOfAKnownMatrix() {
    MatD rotation(2, 2);
    rotation << 0, -1, 1, 0;  // eigenvalues ±i: Σ Re λ = 0
    QCOMPARE(copyingScore(rotation), 0.0);
    QCOMPARE(copyingScore(MatD::Identity(3, 3)), 1.0);
    QVERIFY(std::isnan(copyingScore(MatD::Zero(2, 2))));
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestCopyingScore)
#include "test_copying_score.moc"
