// An encoder–decoder's heads switched off, in the session (issue 33): prediction.ablate (the decoder's
// self-attention), prediction.ablate_encoder and prediction.ablate_cross round-trip through the params JSON, a file
// written before they existed reads as none, a head toggled in a view of one stack lands in that stack's list, and a
// malformed entry is refused naming its field.
#include <QtTest>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestEncDecAblationSettings : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip() {
    Params p;
    p.prediction.ablate = {{0, 1}};
    p.prediction.ablateEncoder = {{1, 0}, {1, 1}};
    p.prediction.ablateCross = {{0, 0}};
    p.prediction.ablationMode = AblationMode::Mean;
    const nlohmann::json j = toJson(p);
    QCOMPARE(j["prediction"]["ablate_encoder"], nlohmann::json({"1.0", "1.1"}));
    QCOMPARE(j["prediction"]["ablate_cross"], nlohmann::json({"0.0"}));
    const Params back = paramsFromJson(j, Params{});
    QVERIFY(back.prediction.ablate == p.prediction.ablate);
    QVERIFY(back.prediction.ablateEncoder == p.prediction.ablateEncoder);
    QVERIFY(back.prediction.ablateCross == p.prediction.ablateCross);
    QVERIFY(back.prediction.ablationMode == AblationMode::Mean);
  }

  void olderFileHasNone() {
    const nlohmann::json j = {{"schema", "attnlab.params/1"}, {"prediction", {{"ablate", {"2.3"}}}}};
    const Params p = paramsFromJson(j, Params{});
    QVERIFY(p.prediction.ablate == (std::vector<HeadRef>{{2, 3}}));
    QVERIFY(p.prediction.ablateEncoder.empty() && p.prediction.ablateCross.empty());
  }

  void toggleOnTheStackShown() {
    PredictionSettings s;
    toggleAblation(s, {1, 1}, "encoder");
    toggleAblation(s, {0, 1}, "cross");
    toggleAblation(s, {0, 0}, "decoder");
    toggleAblation(s, {1, 0}, "encoder");
    QVERIFY(s.ablateEncoder == (std::vector<HeadRef>{{1, 0}, {1, 1}}));  // sorted
    QVERIFY(s.ablateCross == (std::vector<HeadRef>{{0, 1}}));
    QVERIFY(s.ablate == (std::vector<HeadRef>{{0, 0}}));  // "decoder" and a single-text model's "" share ablate
    QVERIFY(isAblated(s, {0, 0}, "") && !isAblated(s, {0, 0}, "encoder") && isAblated(s, {0, 1}, "cross"));
    toggleAblation(s, {1, 1}, "encoder");
    QVERIFY(s.ablateEncoder == (std::vector<HeadRef>{{1, 0}}));
    QVERIFY(anyAblated(s));
    s = {};
    QVERIFY(!anyAblated(s));
  }

  void malformedIsNamed() {
    const nlohmann::json j = {{"schema", "attnlab.params/1"}, {"prediction", {{"ablate_cross", {"x"}}}}};
    try {
      paramsFromJson(j, Params{});
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("prediction.ablate_cross") != std::string::npos, e.what());
    }
  }
};

ATTNLAB_TEST_MAIN(TestEncDecAblationSettings)
#include "test_encdec_ablation_settings.moc"
