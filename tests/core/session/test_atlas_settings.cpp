// params.atlas (issue 17): every field survives a session's JSON round trip, and each bad value is refused with a
// message naming the field, leaving the parameters as they were.
#include <QtTest>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

class TestAtlasSettings : public QObject {
  Q_OBJECT
 private slots:
  void roundTripsEveryField() {
    Params p;
    p.atlas.probeLength = 32;
    p.atlas.probeSeed = 12345678901ull;
    p.atlas.corpus = {"/data/notes.txt", "/data/texts"};
    p.atlas.window = 128;
    p.atlas.top = 25;
    p.atlas.x = "copying";
    p.atlas.y = "corpus_entropy";
    p.atlas.colour = "head";
    const Params back = paramsFromJson(nlohmann::json::parse(toJson(p).dump()));
    QCOMPARE(back.atlas.probeLength, 32);
    QCOMPARE(back.atlas.probeSeed, 12345678901ull);
    QCOMPARE(back.atlas.corpus, p.atlas.corpus);
    QCOMPARE(back.atlas.window, 128);
    QCOMPARE(back.atlas.top, 25);
    QCOMPARE(back.atlas.x, std::string("copying"));
    QCOMPARE(back.atlas.y, std::string("corpus_entropy"));
    QCOMPARE(back.atlas.colour, std::string("head"));
  }

  void absentFieldsKeepTheirValues() {
    Params base;
    base.atlas.top = 7;
    const Params p = paramsFromJson(nlohmann::json::parse(R"({"atlas": {"probe_length": 16}})"), base);
    QCOMPARE(p.atlas.probeLength, 16);
    QCOMPARE(p.atlas.top, 7);
    QCOMPARE(p.atlas.x, std::string("previous_token"));
  }

  void badValuesNameTheirField_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("not an object") << R"("x")"
                                   << "params: atlas must be an object";
    QTest::newRow("length short") << R"({"probe_length": 1})"
                                  << "atlas.probe_length must be 2–4096";
    QTest::newRow("length text") << R"({"probe_length": "64"})"
                                 << "atlas.probe_length must be an integer";
    QTest::newRow("seed negative") << R"({"probe_seed": -1})"
                                   << "atlas.probe_seed must be an integer ≥ 0";
    QTest::newRow("corpus string") << R"({"corpus": "a.txt"})"
                                   << "atlas.corpus must be a list";
    QTest::newRow("corpus number") << R"({"corpus": [3]})"
                                   << "atlas.corpus must be a list";
    QTest::newRow("corpus empty path") << R"({"corpus": [""]})"
                                       << "atlas.corpus holds an empty path";
    QTest::newRow("window") << R"({"window": 4})"
                            << "atlas.window must be 8–65536";
    QTest::newRow("top") << R"({"top": 0})"
                         << "atlas.top must be 1–1000";
    QTest::newRow("x number") << R"({"x": 2})"
                              << "atlas.x must be a string";
    QTest::newRow("colour empty") << R"({"colour": ""})"
                                  << "atlas.colour must name a score";
  }
  void badValuesNameTheirField() {
    QFETCH(QString, json);
    QFETCH(QString, message);
    const nlohmann::json j = {{"atlas", nlohmann::json::parse(json.toStdString())}};
    try {
      paramsFromJson(j);
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
  }
};

ATTNLAB_TEST_MAIN(TestAtlasSettings)
#include "test_atlas_settings.moc"
