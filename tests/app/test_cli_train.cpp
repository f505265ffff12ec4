// `attnlab train` as scripts use it: JSON lines while training, the final line's fields (a public
// contract), --save DIR reopened by `attnlab dump --model DIR`, and bad options as messages.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

class TestCliTrain : public QObject {
  Q_OBJECT

  using Run = AppRun;
  static Run run(const QStringList& args) { return runApp(args, {}, 120000); }

 private slots:
  void trainPrintsLinesAndSaves() {
    QTemporaryDir dir;
    const QString save = dir.filePath("ind");
    const Run r = run({"train",   "--task",  "induction", "--layers", "2",     "--heads", "4", "--d-model",
                       "32",      "--steps", "30",        "--lr",     "0.003", "--seed",  "5", "--attention-only",
                       "--every", "10",      "--save",    save});
    QVERIFY2(r.code == 0, r.err.constData());
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 4);  // steps 10, 20, 30, then the final object
    for (int i = 0; i < 3; ++i) {
      const QJsonObject j = QJsonDocument::fromJson(lines[i]).object();
      QCOMPARE(j["step"].toInt(), 10 * (i + 1));
      QVERIFY(j["loss"].toDouble() > 0);
    }
    const QJsonObject fin = QJsonDocument::fromJson(lines[3]).object()["final"].toObject();
    QCOMPARE(fin["step"].toInt(), 30);
    QVERIFY(fin["loss"].toDouble() > 0);
    QVERIFY(fin.contains("accuracy"));
    const QJsonArray scores = fin["scores"].toArray();
    QCOMPARE(scores.size(), 2);
    QCOMPARE(scores[0].toArray().size(), 4);
    const QJsonObject head = scores[1].toArray()[2].toObject();
    QVERIFY(head.contains("induction"));
    QVERIFY(head.contains("previous_token"));
    QVERIFY(head["induction"].toDouble() >= 0 && head["induction"].toDouble() <= 1);
    QVERIFY(fin["ms_per_step"].toDouble() > 0);

    const Run d = run({"dump", "--model", save, "--sentence", "one two three one two three"});
    QVERIFY2(d.code == 0, d.err.constData());
    const QJsonObject trace = QJsonDocument::fromJson(d.out).object();
    QCOMPARE(trace["tokens"].toArray().size(), 7);  // BOS + 6 words
    QCOMPARE(trace["config"].toObject()["kind"].toString(), QString("tiny"));
    QCOMPARE(trace["layers"].toArray().size(), 2);
  }

  void badOptionsAreMessages() {
    const Run task = run({"train", "--task", "juggling", "--steps", "1"});
    QCOMPARE(task.code, 1);
    QVERIFY2(task.err.contains("juggling"), task.err.constData());
    const Run heads = run({"train", "--heads", "3", "--steps", "1"});
    QCOMPARE(heads.code, 1);
    QVERIFY2(heads.err.contains("head"), heads.err.constData());
    const Run lr = run({"train", "--lr", "nan", "--steps", "1"});
    QCOMPARE(lr.code, 1);
    const Run variant = run({"train", "--variant", "quantum", "--steps", "1"});
    QCOMPARE(variant.code, 1);
    QVERIFY2(variant.err.contains("quantum"), variant.err.constData());
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliTrain)
#include "test_cli_train.moc"
