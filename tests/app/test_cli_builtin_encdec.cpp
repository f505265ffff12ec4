// `attnlab dump --mode encdec --source TEXT --target TEXT` (issue 33): the built-in model's rung 7 writes the
// two-text trace document (schema attnlab.trace/1, "source_tokens", "tokens", "encoder_layers", "layers" with
// "cross_heads"), its numbers those of core/model/builtin_encdec.h run in this process; without --target, and for
// predict / generate, a clear message and exit 1.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <cmath>

#include "core/model/builtin_encdec.h"
#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

const QStringList kModel{"--mode", "encdec", "--d-model", "16", "--heads", "4", "--layers", "2", "--seed", "5"};

/// The largest |got − want| over a JSON matrix and a Mat of the same shape; +inf when the shapes differ.
double worst(const QJsonArray& got, const Mat& want) {
  if (got.size() != want.rows()) return INFINITY;
  double w = 0;
  for (int i = 0; i < got.size(); ++i) {
    const QJsonArray row = got[i].toArray();
    if (row.size() != want.cols()) return INFINITY;
    for (int j = 0; j < row.size(); ++j) w = std::max(w, std::abs(row[j].toDouble() - double(want(i, j))));
  }
  return w;
}

}  // namespace

class TestCliBuiltinEncDec : public QObject {
  Q_OBJECT

 private slots:
  void dumpsBothTexts() {
    const AppRun r =
        runApp(QStringList{"dump"} + kModel + QStringList{"--source", "The cat sat", "--target", "le chat"});
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(doc["schema"].toString(), QStringLiteral("attnlab.trace/1"));
    const QJsonObject config = doc["config"].toObject();
    QCOMPARE(config["kind"].toString(), QStringLiteral("builtin"));
    QCOMPARE(config["mode"].toString(), QStringLiteral("encdec"));
    QCOMPARE(config["encoder_layers"].toInt(), 2);
    QCOMPARE(config["decoder_layers"].toInt(), 2);
    QCOMPARE(doc["source_tokens"].toArray(), (QJsonArray{"the", "cat", "sat"}));
    QCOMPARE(doc["tokens"].toArray(), (QJsonArray{"le", "chat"}));  // no start token: nothing is predicted

    ModelConfig c;
    c.mode = Mode::EncDec;
    c.dModel = 16;
    c.heads = 4;
    c.seed = 5;
    const EncDecTrace want = BuiltinEncDec(c).forward({"the", "cat", "sat"}, {"le", "chat"});
    const QJsonArray enc = doc["encoder_layers"].toArray(), dec = doc["layers"].toArray();
    QCOMPARE(enc.size(), 2);
    QCOMPARE(dec.size(), 2);
    double w = 0;
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 4; ++h) {
        const QJsonArray cross = dec[l].toObject()["cross_heads"].toArray();
        QCOMPARE(cross.size(), 4);
        w = std::max(w, worst(cross[h].toObject()["attention"].toArray(), want.cross[l].heads[h].attention));
        w = std::max(w, worst(dec[l].toObject()["heads"].toArray()[h].toObject()["attention"].toArray(),
                              want.decoder.layers[l].heads[h].attention));
        w = std::max(w, worst(enc[l].toObject()["heads"].toArray()[h].toObject()["attention"].toArray(),
                              want.encoder.layers[l].heads[h].attention));
      }
    w = std::max(w, worst(dec[1].toObject()["residual_out"].toArray(), want.decoderOut));
    QVERIFY2(w < 1e-6, qPrintable(QString::number(w)));  // the JSON's float digits
    // --sentence is the source too.
    const AppRun same =
        runApp(QStringList{"dump"} + kModel + QStringList{"--sentence", "The cat sat", "--target", "le chat"});
    QCOMPARE(same.code, 0);
    QCOMPARE(same.out, r.out);
  }

  void refusesWhatItCannotDo() {
    struct Case {
      QStringList args;
      const char* says;
    };
    const Case cases[] = {
        {QStringList{"dump"} + kModel + QStringList{"--source", "the cat"}, "needs --target TEXT"},
        {QStringList{"dump"} + kModel + QStringList{"--source", "the cat", "--target", " "}, "--target is empty"},
        {QStringList{"dump"} + kModel + QStringList{"--source", "a", "--sentence", "b", "--target", "c"},
         "give the source once"},
        {QStringList{"dump"} + kModel + QStringList{"--source-ids", "1,2", "--target", "c"}, "no vocabulary"},
        {QStringList{"predict"} + kModel + QStringList{"--sentence", "the cat"}, "no output head"},
        {QStringList{"predict"} + kModel + QStringList{"--source", "the cat", "--target", "le"}, "no output head"},
        {QStringList{"generate"} + kModel + QStringList{"--source", "the cat", "--steps", "2"}, "no output head"},
        {QStringList{"generate"} + kModel + QStringList{"--sentence", "the cat", "--steps", "2"}, "no output head"},
    };
    for (const Case& c : cases) {
      const AppRun r = runApp(c.args);
      QVERIFY2(r.code == 1, qPrintable(c.args.join(' ') + " → " + QString::number(r.code)));
      QVERIFY2(r.err.contains(c.says), qPrintable(c.args.join(' ') + ": " + r.err));
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliBuiltinEncDec)
#include "test_cli_builtin_encdec.moc"
