#include <QtTest>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestParamsJson : public QObject {
  Q_OBJECT
 private slots:
  void roundTripsEveryField() {
    Params p;
    p.sentence = "我 ❤ 🐱 \"quoted\"";
    p.lowercase = false;
    p.keepLastTokens = 512;
    p.modelDir = "/models/gpt2";
    p.model.dModel = 96;
    p.model.heads = 3;
    p.model.layers = 5;
    p.model.seed = 1234567890123ull;
    p.model.mode = Mode::Causal;
    p.model.position = PositionKind::LearnedRandom;
    p.model.scale = false;
    p.model.causal = true;
    p.model.skip = false;
    p.model.mlp = false;
    p.model.norm = NormPlacement::Post;
    p.model.activation = Activation::Relu;
    p.selection = {4, 2, "qkv", {}};
    p.prediction.temperature = 0.7;
    p.prediction.topK = 40;
    p.prediction.topP = 0.9;
    p.prediction.greedy = false;
    p.prediction.seed = 99;
    p.prediction.generateSteps = 32;
    p.prediction.target = "ĠMary";
    p.prediction.versus = "464";
    p.prediction.ablate = {{0, 3}, {9, 6}};
    p.prediction.ablationMode = AblationMode::Resample;
    p.prediction.resampleText = "Then Anne and Bob \"left\" 🐱";
    p.prediction.clean = "a b";
    p.prediction.corrupt = "a c";
    p.prediction.patchTarget = " b";
    p.prediction.patchVersus = " c";
    const Params q = paramsFromJson(nlohmann::json::parse(toJson(p).dump()));
    QCOMPARE(toJson(q).dump(), toJson(p).dump());
    QCOMPARE(q.model.seed, p.model.seed);
    QCOMPARE(q.sentence, p.sentence);
    QCOMPARE(q.keepLastTokens, 512);
    QVERIFY_THROWS_EXCEPTION(InputError, paramsFromJson(nlohmann::json::parse(R"({"keep_last_tokens": -1})")));
    QVERIFY(q.prediction.ablate == p.prediction.ablate);
    QVERIFY(q.prediction.ablationMode == AblationMode::Resample);
    QCOMPARE(q.prediction.resampleText, p.prediction.resampleText);
    QCOMPARE(toJson(q.prediction)["ablation_mode"].get<std::string>(), std::string("resample"));
    QCOMPARE(toJson(q.prediction)["ablate"].dump(), std::string(R"(["0.3","9.6"])"));
  }

  void ablationListIsASortedSet() {
    const Params q = paramsFromJson(nlohmann::json::parse(R"({"prediction": {"ablate": ["9.6", "0.3", "9.6"]}})"));
    QVERIFY((q.prediction.ablate == std::vector<HeadRef>{{0, 3}, {9, 6}}));
    PredictionSettings s = q.prediction;
    toggleAblation(s, {5, 1});
    QVERIFY((s.ablate == std::vector<HeadRef>{{0, 3}, {5, 1}, {9, 6}}));
    toggleAblation(s, {0, 3});
    QVERIFY((s.ablate == std::vector<HeadRef>{{5, 1}, {9, 6}}));
    QVERIFY(isAblated(s, {9, 6}));
    QVERIFY(!isAblated(s, {0, 3}));
  }

  void resampleTextIsOptional() {
    // A session written before resample ablation came to the window has neither field: zero mode, no text.
    const Params old = paramsFromJson(nlohmann::json::parse(R"({"prediction": {"ablation_mode": "mean"}})"));
    QVERIFY(old.prediction.ablationMode == AblationMode::Mean);
    QCOMPARE(old.prediction.resampleText, std::string());
    // The text is kept under the other modes (switching back to resample finds it again).
    const Params kept = paramsFromJson(
        nlohmann::json::parse(R"({"prediction": {"ablation_mode": "zero", "resample_text": "The cat sat"}})"));
    QVERIFY(kept.prediction.ablationMode == AblationMode::Zero);
    QCOMPARE(kept.prediction.resampleText, std::string("The cat sat"));
    QCOMPARE(toJson(kept)["prediction"]["resample_text"].get<std::string>(), std::string("The cat sat"));
  }

  void absentFieldsKeepTheBase() {
    Params base;
    base.model.heads = 8;
    const Params q = paramsFromJson(nlohmann::json::parse(R"({"sentence": "hi", "future_field": [1, 2]})"), base);
    QCOMPARE(q.model.heads, 8);
    QCOMPARE(q.sentence, std::string("hi"));
  }

  /// A target's pending byte-level ids (a character cut off by a generation) are saved and read back; a file that gives
  /// a target without them has none (they belong to the target they follow), one that names neither keeps the base's.
  void targetPendingFollowsItsTarget() {
    Params p;
    p.target = "cat";
    p.targetPending = {36, 37};
    QCOMPARE(toJson(p)["target_pending"], nlohmann::json::parse("[36, 37]"));
    QCOMPARE(paramsFromJson(toJson(p)).targetPending, (std::vector<int>{36, 37}));
    QCOMPARE(paramsFromJson(nlohmann::json::parse(R"({"target": "dog"})"), p).targetPending, std::vector<int>{});
    QCOMPARE(paramsFromJson(nlohmann::json::parse(R"({"sentence": "x"})"), p).targetPending,
             (std::vector<int>{36, 37}));
    QCOMPARE(toJson(Params{})["target_pending"], nlohmann::json::array());
  }

  void wrongValuesNameTheField_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("type") << R"({"model": {"heads": "four"}})"
                          << "model.heads must be an integer";
    QTest::newRow("fraction") << R"({"model": {"layers": 2.5}})"
                              << "model.layers must be an integer";
    QTest::newRow("bool") << R"({"model": {"causal": 1}})"
                          << "model.causal must be true or false";
    QTest::newRow("enum") << R"({"model": {"mode": "magic"}})"
                          << "model.mode";
    QTest::newRow("seed") << R"({"model": {"seed": -3}})"
                          << "model.seed must be a non-negative integer";
    QTest::newRow("newer") << R"({"schema": "attnlab.params/9"})"
                           << "newer than this program";
    QTest::newRow("foreign") << R"({"schema": "something/1"})"
                             << "not attnlab.params";
    QTest::newRow("array") << R"([1, 2])"
                           << "expected a JSON object";
    QTest::newRow("selection") << R"({"selection": {"view": 3}})"
                               << "selection.view must be a string";
    QTest::newRow("temperature") << R"({"prediction": {"temperature": 0}})"
                                 << "prediction.temperature must be > 0";
    QTest::newRow("top_p") << R"({"prediction": {"top_p": 1.5}})"
                           << "prediction.top_p must be in (0, 1]";
    QTest::newRow("top_k") << R"({"prediction": {"top_k": 2.5}})"
                           << "prediction.top_k must be an integer";
    QTest::newRow("ablate") << R"({"prediction": {"ablate": ["3-1"]}})"
                            << "prediction.ablate expects heads as LAYER.HEAD";
    QTest::newRow("ablate type") << R"({"prediction": {"ablate": "3.1"}})"
                                 << "prediction.ablate must be a list";
    QTest::newRow("mode") << R"({"prediction": {"ablation_mode": "half"}})"
                          << "prediction.ablation_mode is 'half' (use zero, mean or resample)";
    QTest::newRow("mode type") << R"({"prediction": {"ablation_mode": 2}})"
                               << "prediction.ablation_mode must be a string";
    QTest::newRow("resample text") << R"({"prediction": {"resample_text": 7}})"
                                   << "prediction.resample_text must be a string";
    QTest::newRow("resample text list") << R"({"prediction": {"resample_text": ["a", "b"]}})"
                                        << "prediction.resample_text must be a string";
    QTest::newRow("pending") << R"({"target_pending": [36, -1]})"
                             << "target_pending must be an array of token ids";
    QTest::newRow("pending type") << R"({"target_pending": "ð"})"
                                  << "target_pending must be an array of token ids";
    QTest::newRow("steps") << R"({"prediction": {"generate_steps": 0}})"
                           << "prediction.generate_steps must be 1–512";
  }
  void wrongValuesNameTheField() {
    QFETCH(QString, json);
    QFETCH(QString, message);
    try {
      paramsFromJson(nlohmann::json::parse(json.toStdString()));
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(message), e.what());
    }
  }

  void syntaxErrorsAreInputErrors() {
    QVERIFY_THROWS_EXCEPTION(InputError, parseJsonText("{\"a\": ", "session.json"));
    try {
      parseJsonText("{oops}", "session.json");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("session.json"));
    }
    // Found by fuzz_session: a number beyond a double's range threw nlohmann's out_of_range, which nothing caught.
    try {
      parseJsonText(R"({"sentence": 1.5e888888888888888})", "session.json");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("session.json is not valid JSON (") &&
                   QString(e.what()).contains("number overflow"),
               e.what());
    }
    // A million '[' would overflow the parser's stack: refused before parsing.
    try {
      parseJsonText(std::string(1000000, '['), "session.json");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("nested deeper than 64 levels"), e.what());
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestParamsJson)
#include "test_params_json.moc"
