// `attnlab heads` (issue 17's public JSON contract): schema and field names, the probe's ids and tokens, every
// metric as [[per head] per layer], a layer-major similarity matrix with its cluster order and map; the built-in
// model's copying score is null; a probe longer than the model's context is shortened to fit, with a note.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

namespace {

const QString kModel = QString(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";

QJsonObject runJson(const QStringList& args) {
  const AppRun r = runApp(args);
  if (r.code != 0) qWarning() << r.err;
  return r.code == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
}

}  // namespace

class TestCliHeads : public QObject {
  Q_OBJECT

 private slots:
  void headsOfGpt2() {
    const QJsonObject j = runJson({"heads", "--model", kModel, "--probe-length", "6", "--probe-seed", "3"});
    QCOMPARE(j["schema"].toString(), QString("attnlab.heads/1"));
    QCOMPARE(j["layers"].toInt(), 2);
    QCOMPARE(j["heads"].toInt(), 4);
    const QJsonArray ids = j["probe_ids"].toArray();
    QCOMPARE(ids.size(), 13);
    QCOMPARE(ids[0].toInt(), 376);  // <|endoftext|>
    QCOMPARE(ids[1].toInt(), ids[7].toInt());
    QCOMPARE(j["probe_tokens"].toArray().size(), 13);
    const QJsonObject metrics = j["metrics"].toObject();
    for (const char* name :
         {"previous_token", "induction", "duplicate_token", "bos", "entropy", "mean_distance", "copying"}) {
      const QJsonArray grid = metrics[name].toArray();
      QVERIFY2(grid.size() == 2 && grid[1].toArray().size() == 4, name);
      QVERIFY2(grid[0].toArray()[0].isDouble(), name);
    }
    const QJsonArray similarity = j["similarity"].toArray();
    QCOMPARE(similarity.size(), 8);
    QCOMPARE(similarity[3].toArray()[3].toDouble(), 1.0);
    QCOMPARE(j["cluster_order"].toArray().size(), 8);
    QCOMPARE(j["map_2d"].toArray().size(), 8);
    QVERIFY(j["notes"].isArray());
    // The seed fixes the probe.
    const QJsonObject again = runJson({"heads", "--model", kModel, "--probe-length", "6", "--probe-seed", "3"});
    QCOMPARE(again["probe_ids"].toArray(), ids);
  }

  void builtinCopyingIsNull() {
    const QJsonObject j = runJson({"heads", "--probe-length", "4"});
    QCOMPARE(j["probe_ids"].toArray().size(), 0);
    QCOMPARE(j["probe_tokens"].toArray().size(), 8);
    QVERIFY(j["metrics"].toObject()["copying"].toArray()[0].toArray()[0].isNull());
    QVERIFY(j["metrics"].toObject()["induction"].toArray()[0].toArray()[0].isDouble());
  }

  void corpusScanAddsContextsAndCorpusScores() {
    QTemporaryDir dir;
    QFile text(dir.filePath("story.txt")), binary(dir.filePath("image.bin"));
    QVERIFY(text.open(QIODevice::WriteOnly) && binary.open(QIODevice::WriteOnly));
    for (int i = 0; i < 20; ++i) text.write("the cat sat on the mat and the dog sat on the log. ");
    binary.write(QByteArray("PNG\0\1\2", 6));
    text.close();
    binary.close();
    const QJsonObject j =
        runJson({"heads", "--model", kModel, "--probe-length", "6", "--corpus", dir.path(), "--corpus", text.fileName(),
                 "--window", "24", "--top", "2", "--ablation-tokens", "16"});
    QVERIFY(j["corpus_tokens"].toInt() > 200);
    const QJsonObject examples = j["top_examples"].toObject();
    QCOMPARE(examples.size(), 8);
    const QJsonArray contexts = examples["1.2"].toArray();
    QCOMPARE(contexts.size(), 4);  // --top 2 of each kind
    QStringList kinds;
    for (const auto& c : contexts) {
      kinds << c.toObject()["kind"].toString();
      for (const char* key : {"text", "position", "score", "kind"}) QVERIFY2(c.toObject().contains(key), key);
    }
    QCOMPARE(kinds.count("output_norm"), 2);
    QCOMPARE(kinds.count("attention_edge"), 2);
    const QJsonObject metrics = j["metrics"].toObject();
    for (const char* name : {"dla_magnitude", "ablation_effect", "corpus_previous_token", "corpus_entropy"})
      QVERIFY2(metrics[name].toArray().size() == 2, name);
    QString notes;
    for (const auto& n : j["notes"].toArray()) notes += n.toString() + "\n";
    QVERIFY2(notes.contains("image.bin") && notes.contains("NUL byte"), qPrintable(notes));
  }

  void aProbeLongerThanTheContextIsShortenedWithANote() {
    // As the window does: the default probe (2 × 64 + BOS) and an explicit --probe-length 30 (61 tokens) are
    // shortened to the 48-position model (2 × 23 + BOS, room for a closing special token), and "notes" says so.
    // The command line refused both before ("the probe takes 129 tokens").
    for (const QStringList& extra : {QStringList{}, QStringList{"--probe-length", "30"}}) {
      const QJsonObject j = runJson(QStringList{"heads", "--model", kModel} + extra);
      QCOMPARE(j["probe_tokens"].toArray().size(), 47);
      const QString asked = extra.isEmpty() ? "64" : "30";
      QCOMPARE(j["notes"].toArray().first().toString(),
               "probe shortened to 2 × 23 random tokens (asked: 2 × " + asked + ") to fit the model's context of 48");
    }
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestCliHeads)
#include "test_cli_heads.moc"
