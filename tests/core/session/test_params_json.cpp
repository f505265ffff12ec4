#include <QtTest>

#include "core/base/errors.h"
#include "core/session/params_json.h"

using namespace attnlab;

class TestParamsJson : public QObject {
  Q_OBJECT
 private slots:
  void roundTripsEveryField() {
    Params p;
    p.sentence = "我 ❤ 🐱 \"quoted\"";
    p.lowercase = false;
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
    const Params q = paramsFromJson(nlohmann::json::parse(toJson(p).dump()));
    QCOMPARE(toJson(q).dump(), toJson(p).dump());
    QCOMPARE(q.model.seed, p.model.seed);
    QCOMPARE(q.sentence, p.sentence);
  }

  void absentFieldsKeepTheBase() {
    Params base;
    base.model.heads = 8;
    const Params q = paramsFromJson(nlohmann::json::parse(R"({"sentence": "hi", "future_field": [1, 2]})"), base);
    QCOMPARE(q.model.heads, 8);
    QCOMPARE(q.sentence, std::string("hi"));
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
  }
};

QTEST_GUILESS_MAIN(TestParamsJson)
#include "test_params_json.moc"
