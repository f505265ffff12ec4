// `attnlab export --source TEXT --target TEXT --stack encoder|decoder|cross` (issue 33): an encoder–decoder's two
// texts and stack on the command line, as `dump --source … --target …` takes them, instead of a session file. The
// exported heatmap's numbers equal the maps `dump` writes for the same texts (builtin:reverse, to 1e-6); a bad stack
// and --source with --sentence are refused with exit 1 and no file.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

namespace {

QJsonObject readJsonFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

/// The largest difference between an exported matrix's "values" and a dumped map (rows of numbers).
double worst(const QJsonArray& values, const QJsonArray& map) {
  if (values.size() != map.size() || values.isEmpty()) return 1e9;
  double w = 0;
  for (int i = 0; i < values.size(); ++i) {
    const QJsonArray a = values[i].toArray(), b = map[i].toArray();
    if (a.size() != b.size()) return 1e9;
    for (int j = 0; j < a.size(); ++j) w = std::max(w, std::abs(a[j].toDouble() - b[j].toDouble()));
  }
  return w;
}

}  // namespace

class TestCliExportTwoTexts : public QObject {
  Q_OBJECT
 private slots:
  void stacksFromTheCommandLine() {
    QTemporaryDir tmp;
    const QStringList texts = {"--model", "builtin:reverse", "--source", "p l a n e t", "--target", "t e n"};
    const AppRun d = runApp(QStringList{"dump"} + texts);
    QVERIFY2(d.code == 0, d.err.constData());
    const QJsonObject dump = QJsonDocument::fromJson(d.out).object();
    const QJsonObject layer0 = dump["layers"].toArray()[0].toObject();
    const QJsonArray cross = layer0["cross_heads"].toArray()[1].toObject()["attention"].toArray();
    const QJsonArray decoder = layer0["heads"].toArray()[1].toObject()["attention"].toArray();
    const QJsonArray encoder =
        dump["encoder_layers"].toArray()[0].toObject()["heads"].toArray()[1].toObject()["attention"].toArray();
    QCOMPARE(cross.size(), 4);  // </s> t e n × p l a n e t </s>
    QCOMPARE(cross[0].toArray().size(), 7);
    for (const auto& [stack, want] :
         {std::pair{"cross", cross}, std::pair{"decoder", decoder}, std::pair{"encoder", encoder}}) {
      const QString out = tmp.filePath(QString(stack) + ".json");
      const AppRun e =
          runApp(QStringList{"export", "--view", "heatmap", "--head", "1", "--stack", stack, "--out", out} + texts);
      QVERIFY2(e.code == 0, e.err.constData());
      const QJsonArray values = readJsonFile(out)["matrices"].toArray()[0].toObject()["values"].toArray();
      QVERIFY2(worst(values, want) < 1e-6, stack);
    }
    const QString bad = tmp.filePath("bad.json");
    const AppRun wrong = runApp(QStringList{"export", "--view", "heatmap", "--stack", "side", "--out", bad} + texts);
    QCOMPARE(wrong.code, 1);
    QVERIFY2(QString::fromUtf8(wrong.err).contains("--stack must be encoder, decoder or cross"), wrong.err.constData());
    const AppRun both = runApp(QStringList{"export", "--view", "heatmap", "--sentence", "a b", "--out", bad} + texts);
    QCOMPARE(both.code, 1);
    QVERIFY2(QString::fromUtf8(both.err).contains("not both"), both.err.constData());
    QVERIFY(!QFile::exists(bad));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliExportTwoTexts)
#include "test_cli_export_two_texts.moc"
