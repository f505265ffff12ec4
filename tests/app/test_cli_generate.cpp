// `attnlab generate` as scripts run it: one JSON line per step with exactly "step", "id", "token" and
// "prob"; greedy tokens are those of the library's generate() on the same checkpoint and sentence; a seed
// repeats a sampled run; bad input gets a message and exit status 1.
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "core/checkpoint/checkpoint.h"
#include "core/model/generate.h"
#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

class TestCliGenerate : public QObject {
  Q_OBJECT

  static QString data(const char* rel) { return QString(ATTNLAB_TEST_DATA) + "/" + rel; }
  static QList<QJsonObject> lines(const QByteArray& out) {
    QList<QJsonObject> objects;
    for (const QByteArray& line : out.trimmed().split('\n')) objects << QJsonDocument::fromJson(line).object();
    return objects;
  }
  static QList<int> ids(const QList<QJsonObject>& steps) {
    QList<int> out;
    for (const QJsonObject& s : steps) out << s["id"].toInt();
    return out;
  }

 private slots:
  void greedyLinesMatchTheLibrary() {
    const AppRun r = runApp({"generate", "--model", data("reference/models/gpt2_tiny"), "--sentence", "the cat walks",
                             "--steps", "6", "--greedy"});
    QCOMPARE(r.code, 0);
    const QList<QJsonObject> steps = lines(r.out);
    QCOMPARE(steps.size(), 6);
    const auto model = attnlab::loadCheckpoint(data("reference/models/gpt2_tiny").toStdString());
    const auto expected = attnlab::generate(*model, model->tokenize("the cat walks").ids, 6, {});
    for (int i = 0; i < 6; ++i) {
      const QJsonObject& s = steps[i];
      QCOMPARE(s.keys(), (QStringList{"id", "prob", "step", "token"}));
      QCOMPARE(s["step"].toInt(), i + 1);
      QCOMPARE(s["id"].toInt(), expected[i].id);
      QCOMPARE(s["token"].toString(), QString::fromStdString(expected[i].piece));
      QVERIFY(std::abs(s["prob"].toDouble() - expected[i].prob) < 1e-9);
    }
  }

  void aSeedRepeatsASampledRun() {
    const QStringList args{"generate",
                           "--model",
                           data("reference/decoders/mistral-window"),
                           "--sentence",
                           "hello",
                           "--steps",
                           "12",
                           "--temperature",
                           "2",
                           "--seed",
                           "5"};
    const AppRun a = runApp(args), b = runApp(args);
    QCOMPARE(a.code, 0);
    QCOMPARE(ids(lines(a.out)).size(), 12);
    QCOMPARE(ids(lines(a.out)), ids(lines(b.out)));
    const AppRun c = runApp(QStringList(args.mid(0, 10)) << "6");
    QCOMPARE(c.code, 0);
    QVERIFY(ids(lines(c.out)) != ids(lines(a.out)));
  }

  void keepLastCutsALongPrompt() {
    // 60 words do not fit the 48 positions of the tiny GPT-2 with 3 more tokens; the last 20 do (--keep-last was
    // ignored by generate and the prompt refused).
    QStringList words;
    for (int i = 0; i < 60; ++i) words << (i % 2 ? "cat" : "the");
    const QString gpt2 = data("reference/models/gpt2_tiny");
    const AppRun whole = runApp({"generate", "--model", gpt2, "--sentence", words.join(' '), "--steps", "3"});
    QCOMPARE(whole.code, 1);
    const AppRun kept =
        runApp({"generate", "--model", gpt2, "--sentence", words.join(' '), "--steps", "3", "--keep-last", "20"});
    QVERIFY2(kept.code == 0, kept.err.constData());
    QCOMPARE(lines(kept.out).size(), 3);
  }

  void badInputGetsAMessage_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString gpt2 = data("reference/models/gpt2_tiny");
    QTest::newRow("no steps") << QStringList{"generate", "--model", gpt2} << "--steps N is required";
    QTest::newRow("zero steps") << QStringList{"generate", "--model", gpt2, "--steps", "0"}
                                << "--steps must be between 1 and 100000";
    QTest::newRow("top-p 0") << QStringList{"generate", "--model", gpt2, "--steps", "1", "--top-p", "0"}
                             << "--top-p must be between 1e-09 and 1, got 0";  // was "between 0.000000 and 1.000000"
    QTest::newRow("100001 steps") << QStringList{"generate", "--model", gpt2, "--steps", "100001"}
                                  << "--steps must be between 1 and 100000";
    QTest::newRow("too long") << QStringList{"generate", "--model", gpt2, "--steps", "60"} << "48 positions";
    QTest::newRow("greedy and temperature")
        << QStringList{"generate", "--model", gpt2, "--steps", "3", "--greedy", "--temperature", "1"}
        << "does not combine";
    QTest::newRow("built-in model") << QStringList{"generate", "--steps", "3"} << "no unembedding";
    QTest::newRow("bert") << QStringList{"generate", "--model", data("reference/models/bert_tiny"), "--steps", "3"}
                          << "unembedding";
    QTest::newRow("bert with its masked-LM head")
        << QStringList{"generate", "--model", data("fixtures/lm-buddy/bert_tiniest"), "--steps", "3"}
        << "masked language model";
  }

  void badInputGetsAMessage() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const AppRun r = runApp(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(QString(r.err).contains(message), r.err.constData());
    QVERIFY(r.out.isEmpty());
  }
};

ATTNLAB_TEST_MAIN(TestCliGenerate)
#include "test_cli_generate.moc"
