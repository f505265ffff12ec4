// The command line with real checkpoints: `attnlab dump --model DIR` and `attnlab tokenize`, run as a
// separate process like scripts do; the JSON field names are the public contract.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

class TestCliModels : public QObject {
  Q_OBJECT

  using Run = AppRun;
  static Run run(const QStringList& args, const QByteArray& input = {}) { return runApp(args, input); }
  static QString data(const char* rel) { return QString(ATTNLAB_TEST_DATA) + "/" + rel; }
  static QStringList strings(const QJsonArray& a) {
    QStringList out;
    for (const auto& v : a) out << v.toString();
    return out;
  }
  static QList<int> ints(const QJsonArray& a) {
    QList<int> out;
    for (const auto& v : a) out << v.toInt();
    return out;
  }

 private slots:
  void dumpRealModel() {
    const Run r = run({"dump", "--model", data("fixtures/lm-buddy/bert_tiniest"), "--sentence", "Hello, world!"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(strings(j["tokens"].toArray()), (QStringList{"[CLS]", "hello", ",", "world", "!", "[SEP]"}));
    QCOMPARE(ints(j["token_ids"].toArray()), (QList<int>{101, 7592, 1010, 2088, 999, 102}));
    QCOMPARE(j["config"].toObject()["kind"].toString(), QString("bert"));
    QVERIFY(!j["causal"].toBool());
    QCOMPARE(j["layers"].toArray().size(), 1);
  }

  void dumpGpt2IsCausal() {
    const Run r = run({"dump", "--model", data("reference/models/gpt2_tiny"), "--sentence", "the cat walks", "--layer",
                       "1", "--head", "3"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(strings(j["tokens"].toArray()), (QStringList{"the", "Ġcat", "Ġwalk", "s"}));
    QVERIFY(j["causal"].toBool());
    const QJsonArray heads = j["layers"].toArray()[1].toObject()["heads"].toArray();
    QCOMPARE(heads.size(), 4);
    QCOMPARE(heads[0].toObject()["attention"].toArray()[0].toArray()[3].toDouble(), 0.0);
  }

  void tokenizeLines() {
    const QByteArray input = "hello world\nUNwantéd,running\n\n";
    const Run plain = run({"tokenize", "--model", data("fixtures/lm-buddy/bert_tiniest")}, input);
    QCOMPARE(plain.code, 0);
    const QList<QByteArray> lines = plain.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    const QJsonObject first = QJsonDocument::fromJson(lines[0]).object();
    QCOMPARE(ints(first["ids"].toArray()), (QList<int>{7592, 2088}));
    QCOMPARE(strings(first["tokens"].toArray()), (QStringList{"hello", "world"}));
    QCOMPARE(strings(QJsonDocument::fromJson(lines[1]).object()["tokens"].toArray()),
             (QStringList{"unwanted", ",", "running"}));
    QCOMPARE(QJsonDocument::fromJson(lines[2]).object()["ids"].toArray().size(), 0);

    const Run special = run({"tokenize", "--model", data("fixtures/lm-buddy/bert_tiniest"), "--special"}, input);
    QCOMPARE(ints(QJsonDocument::fromJson(special.out.split('\n')[0]).object()["ids"].toArray()),
             (QList<int>{101, 7592, 2088, 102}));
  }

  void tokenizeGpt2() {
    const Run r = run({"tokenize", "--model", data("fixtures/lm-buddy/fake_gpt2")}, "hello <|endoftext|>\n");
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(ints(j["ids"].toArray()), (QList<int>{31373, 220, 50256}));
    QCOMPARE(strings(j["tokens"].toArray()), (QStringList{"hello", "Ġ", "<|endoftext|>"}));
  }

  void badFolderGivesMessageAndNonZeroExit_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("dump, no folder") << QStringList{"dump", "--model", "/nonexistent/m", "--sentence", "x"}
                                     << "/nonexistent/m: not a folder";
    QTest::newRow("tokenize, not a checkpoint")
        << QStringList{"tokenize", "--model", data("fixtures/safetensors-samples")} << "config.json is missing";
    QString longText;
    for (int i = 0; i < 60; ++i) longText += " cat";
    QTest::newRow("too long") << QStringList{"dump", "--model", data("reference/models/gpt2_tiny"), "--sentence",
                                             longText}
                              << "takes at most 48";
  }
  void badFolderGivesMessageAndNonZeroExit() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = run(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliModels)
#include "test_cli_models.moc"
