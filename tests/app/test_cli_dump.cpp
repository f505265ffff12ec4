// `attnlab dump`'s options for long inputs (issue 31), run as scripts run it: --no-streams and --only-layers leave
// parts out while every layer and head keeps its place and the rest equals the full dump; the file and standard
// output get the same text; --npy DIR writes .npy files and an index naming them; bad lists are refused by name.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

namespace {

const QStringList kModel = {
    "--sentence", "mary gave roses to susan", "--heads", "2", "--layers", "3", "--mode", "block", "--causal"};

nlohmann::json parse(const QByteArray& text) { return nlohmann::json::parse(text.toStdString()); }

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestCliDump : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void noStreamsKeepsTheChosenMapOnly() {
    const AppRun full = runApp(QStringList{"dump"} + kModel);
    QVERIFY2(full.code == 0, full.err.constData());
    const AppRun small =
        runApp(QStringList{"dump", "--only", "1.1", "--no-qkv", "--no-streams", "--only-layers", "1,2"} + kModel);
    QVERIFY2(small.code == 0, small.err.constData());
    QVERIFY(small.out.size() * 4 < full.out.size());
    const nlohmann::json whole = parse(full.out), part = parse(small.out);
    QVERIFY(!part.contains("embeddings"));
    QCOMPARE(part["tokens"], whole["tokens"]);
    QCOMPARE(part["params"], whole["params"]);
    QCOMPARE(part["layers"].size(), std::size_t(3));
    QCOMPARE(part["layers"][0], nlohmann::json::object());  // left out by --only-layers, its place kept
    for (int l = 1; l < 3; ++l) {
      const nlohmann::json& layer = part["layers"][l];
      QCOMPARE(layer.size(), std::size_t(1));  // "heads" only: no stream
      QCOMPARE(layer["heads"].size(), std::size_t(2));
      for (int h = 0; h < 2; ++h) {
        const nlohmann::json& head = layer["heads"][h];
        if (l == 1 && h == 1) {
          QCOMPARE(head.size(), std::size_t(2));
          QCOMPARE(head["attention"], whole["layers"][1]["heads"][1]["attention"]);
          QCOMPARE(head["scores"], whole["layers"][1]["heads"][1]["scores"]);
        } else {
          QCOMPARE(head, nlohmann::json::object());
        }
      }
    }
  }

  void fileAndStandardOutputAgree() {
    const QString path = dir_.filePath("dump.json");
    for (const QStringList& extra : {QStringList{}, QStringList{"--indent", "2", "--no-streams"}}) {
      const AppRun out = runApp(QStringList{"dump"} + kModel + extra);
      const AppRun file = runApp(QStringList{"dump", "--out", path} + kModel + extra);
      QVERIFY2(out.code == 0 && file.code == 0, file.err.constData());
      QCOMPARE(readFile(path), out.out);
      QVERIFY(out.out.endsWith("}\n"));
    }
  }

  void npyFolderWithAnIndex() {
    const QString folder = dir_.filePath("npy/deeper");  // created when missing
    const AppRun r = runApp(QStringList{"dump", "--npy", folder, "--only", "2.0", "--no-qkv"} + kModel);
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY(r.out.isEmpty());
    const nlohmann::json index = parse(readFile(folder + "/index.json"));
    const nlohmann::json whole = parse(runApp(QStringList{"dump", "--only", "2.0", "--no-qkv"} + kModel).out);
    QCOMPARE(index["schema"], whole["schema"]);
    QCOMPARE(index["tokens"], whole["tokens"]);
    const nlohmann::json& ref = index["layers"][2]["heads"][0]["attention"];
    QCOMPARE(ref["dtype"], nlohmann::json("float32"));
    QCOMPARE(ref["shape"], nlohmann::json({5, 5}));
    const QByteArray npy = readFile(folder + "/" + QString::fromStdString(ref["npy"].get<std::string>()));
    QVERIFY(npy.startsWith("\x93NUMPY"));
    QVERIFY(npy.contains("'descr': '<f4'") && npy.contains("'shape': (5, 5)"));
    QCOMPARE(npy.size() % 4, 0);
    QVERIFY(!index["layers"][2]["heads"][1].contains("attention"));
    const QStringList files = QDir(folder).entryList({"*.npy"});
    // embeddings + per layer 5 streams and 2 head outputs + the one map pair.
    QCOMPARE(files.size(), 1 + 3 * (5 + 2) + 2);
  }

  void badListsAreNamed_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("layer out of range") << QStringList{"--only-layers", "3"} << "layer 3 does not exist";
    QTest::newRow("not a number") << QStringList{"--only-layers", "1,x"} << "expects layers as L,L";
    QTest::newRow("empty item") << QStringList{"--only-layers", "1,,2"} << "expects layers as L,L";
    QTest::newRow("map outside the layers")
        << QStringList{"--only-layers", "1", "--only", "0.1"} << "in a layer that --only-layers leaves out";
    QTest::newRow("npy and out") << QStringList{"--npy", dir_.filePath("x"), "--out", dir_.filePath("y.json")}
                                 << "not both";
    QTest::newRow("npy on a file") << QStringList{"--npy", "/dev/null"} << "cannot create the folder";
  }
  void badListsAreNamed() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const AppRun r = runApp(QStringList{"dump"} + kModel + args);
    QCOMPARE(r.code, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
  }

  void helpNamesTheOptions() {
    const AppRun r = runApp({"--help"});
    for (const char* option : {"--no-streams", "--only-layers", "--npy"}) QVERIFY2(r.out.contains(option), option);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliDump)
#include "test_cli_dump.moc"
