// The command line as scripts use it: the program is run as a separate process and its output
// parsed back (JSON, PNG, SVG, PDF). Field names checked here are the public contract.
#include <QDir>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

class TestCli : public QObject {
  Q_OBJECT

  using Run = AppRun;
  static Run run(const QStringList& args) { return runApp(args); }
  QTemporaryDir dir_;

 private slots:
  void dumpWritesTheTraceSchema() {
    const Run r = run({"dump", "--sentence", "mary gave roses to susan", "--heads", "2", "--layers", "3"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j["schema"].toString(), QString("attnlab.trace/1"));
    QCOMPARE(j["tokens"].toArray().size(), 5);
    QCOMPARE(j["tokens"].toArray()[1].toString(), QString("gave"));
    QCOMPARE(j["config"].toObject()["heads"].toInt(), 2);
    const QJsonArray layers = j["layers"].toArray();
    QCOMPARE(layers.size(), 3);
    for (const auto& layer : layers) {
      const QJsonArray heads = layer.toObject()["heads"].toArray();
      QCOMPARE(heads.size(), 2);
      for (const auto& h : heads) {
        const QJsonObject head = h.toObject();
        for (const char* key : {"q", "k", "v", "scores", "attention", "output"}) QVERIFY2(head.contains(key), key);
        QCOMPARE(head["q"].toArray().size(), 5);
        QCOMPARE(head["q"].toArray()[0].toArray().size(), 32);  // d_head = 64 / 2
        for (const auto& row : head["attention"].toArray()) {
          double sum = 0;
          for (const auto& v : row.toArray()) sum += v.toDouble();
          QVERIFY(std::abs(sum - 1.0) < 1e-5);
        }
      }
      QCOMPARE(layer.toObject()["residual_out"].toArray().size(), 5);
    }
  }

  void longInputDumpsFromAFileWithFewerMaps() {
    // Issue 18: --sentence-file reads the text; --only keeps the maps of the named heads, --no-qkv drops q, k, v;
    // bytes that are not UTF-8 are U+FFFD in every string written, the rest of the text as it was.
    const QString path = dir_.filePath("page.txt");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("caf\xc3 ok \xff\xfe bad words\n");
    f.close();
    for (const QStringList& model :
         {QStringList{}, QStringList{"--model", ATTNLAB_TEST_DATA "/reference/models/gpt2_tiny"}}) {
      const Run r = run(QStringList{"dump", "--sentence-file", path, "--only", "1.0", "--no-qkv"} + model);
      QVERIFY2(r.code == 0, r.err.constData());
      const QJsonObject j = QJsonDocument::fromJson(r.out).object();
      QVERIFY(!j["tokens"].toArray().isEmpty());
      QVERIFY(QString::fromUtf8(r.out).contains(QChar(0xFFFD)));
      QVERIFY(j["params"].toObject()["sentence"].toString().endsWith("bad words\n"));
      const QJsonArray layers = j["layers"].toArray();
      for (int l = 0; l < layers.size(); ++l) {
        const QJsonArray heads = layers[l].toObject()["heads"].toArray();
        for (int h = 0; h < heads.size(); ++h) {
          const QJsonObject head = heads[h].toObject();
          QVERIFY(!head.contains("q") && !head.contains("k") && !head.contains("v"));
          QVERIFY(head.contains("output"));
          QCOMPARE(head.contains("attention"), l == 1 && h == 0);
          QCOMPARE(head.contains("scores"), l == 1 && h == 0);
        }
      }
    }
    QFile bin(dir_.filePath("binary.bin"));
    QVERIFY(bin.open(QIODevice::WriteOnly));
    bin.write(QByteArray("ab\0cd", 5));
    bin.close();
    Run r = run({"dump", "--sentence-file", bin.fileName()});
    QVERIFY(r.code != 0 && QString(r.err).contains("NUL byte at byte offset 2"));
    r = run({"dump", "--sentence-file", path, "--sentence", "x"});
    QVERIFY(r.code != 0 && QString(r.err).contains("not both"));
    r = run({"dump", "--sentence-file", path, "--only", "5.0"});
    QVERIFY(r.code != 0 && QString(r.err).contains("--only: head 5.0 does not exist"));
    r = run({"dump", "--sentence-file", dir_.filePath("missing.txt")});
    QVERIFY(r.code != 0 && QString(r.err).contains("missing.txt"));
  }

  void keepLastCutsATextTooLongForTheModel() {
    // Issue 18: a text beyond the model's positions is refused with both lengths named, or with --keep-last N its
    // last N tokens are kept (N at most the model's limit: gpt2_tiny has 48 positions).
    QString words;
    for (int i = 0; i < 40; ++i) words += QString("w%1 ").arg(i);
    const QStringList gpt2{"--model", ATTNLAB_TEST_DATA "/reference/models/gpt2_tiny"};
    Run r = run(QStringList{"predict", "--sentence", words} + gpt2);
    QVERIFY2(r.code != 0 && QString(r.err).contains("takes at most 48"), r.err.constData());
    r = run(QStringList{"predict", "--sentence", words, "--keep-last", "10"} + gpt2);
    QVERIFY2(r.code == 0, r.err.constData());
    QJsonArray tokens = QJsonDocument::fromJson(r.out).object()["tokens"].toArray();
    QCOMPARE(tokens.size(), 10);
    r = run(QStringList{"predict", "--sentence", words, "--keep-last", "1000"} + gpt2);  // the model's 48
    QCOMPARE(QJsonDocument::fromJson(r.out).object()["tokens"].toArray().size(), 48);
    r = run({"dump", "--sentence", "a b c d e", "--keep-last", "2", "--no-qkv"});  // the built-in model: no ids
    QVERIFY2(r.code == 0, r.err.constData());
    tokens = QJsonDocument::fromJson(r.out).object()["tokens"].toArray();
    QCOMPARE(tokens.size(), 2);
    QCOMPARE(tokens[1].toString(), QString("e"));
    QVERIFY(QString(run({"dump", "--keep-last", "0"}).err).contains("--keep-last must be between 1"));
  }

  void dumpToFileAndFromParams() {
    const QString params = dir_.filePath("p.json");
    QFile f(params);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "attnlab.params/1", "sentence": "a b c", "model": {"mode": "causal", "heads": 1}})");
    f.close();
    const QString out = dir_.filePath("trace.json");
    QCOMPARE(run({"dump", "--params", params, "--out", out}).code, 0);
    QFile t(out);
    QVERIFY(t.open(QIODevice::ReadOnly));
    const QJsonObject j = QJsonDocument::fromJson(t.readAll()).object();
    QCOMPARE(j["tokens"].toArray().size(), 3);
    QVERIFY(j["causal"].toBool());
    const QJsonArray a = j["layers"].toArray()[0].toObject()["heads"].toArray()[0].toObject()["attention"].toArray();
    QCOMPARE(a[0].toArray()[2].toDouble(), 0.0);
    // Command-line options win over the file.
    const Run r = run({"dump", "--params", params, "--sentence", "x y"});
    QCOMPARE(QJsonDocument::fromJson(r.out).object()["tokens"].toArray().size(), 2);
  }

  // The dump carries the whole parameter file: a dump re-runs with --params and gives the same trace.
  void dumpParamsAreAWholeParameterFile() {
    const Run first = run({"dump", "--sentence", "mary gave roses to susan", "--mode", "causal", "--heads", "2",
                           "--head", "1", "--seed", "7"});
    QCOMPARE(first.code, 0);
    const QJsonObject dump = QJsonDocument::fromJson(first.out).object();
    const QJsonObject params = dump["params"].toObject();
    QCOMPARE(params["schema"].toString(), QString("attnlab.params/1"));
    QCOMPARE(params["sentence"].toString(), QString("mary gave roses to susan"));
    QCOMPARE(params["model"].toObject()["heads"].toInt(), 2);
    QCOMPARE(params["selection"].toObject()["head"].toInt(), 1);
    QCOMPARE(params["layer"].toInt(), 0);  // the older fields stay
    QCOMPARE(params["head"].toInt(), 1);
    const QString file = dir_.filePath("dump-params.json");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(params).toJson());
    f.close();
    const Run again = run({"dump", "--params", file});
    QCOMPARE(again.code, 0);
    const QJsonObject redo = QJsonDocument::fromJson(again.out).object();
    QCOMPARE(redo["layers"], dump["layers"]);
    QCOMPARE(redo["params"], dump["params"]);
  }

  void badInputGivesAMessageAndNonZeroExit_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("heads") << QStringList{"dump", "--heads", "5"} << "divisible";
    QTest::newRow("empty") << QStringList{"dump", "--sentence", ""} << "no tokens";
    QTest::newRow("not a number") << QStringList{"dump", "--d-model", "abc"} << "--d-model";
    QTest::newRow("unknown option") << QStringList{"dump", "--bogus"} << "unknown option --bogus";
    QTest::newRow("unknown mode") << QStringList{"dump", "--mode", "fancy"} << "unknown mode";
    QTest::newRow("missing params") << QStringList{"dump", "--params", "/nonexistent.json"} << "/nonexistent.json";
    QTest::newRow("layer range") << QStringList{"dump", "--layer", "7"} << "layer 7";
    QTest::newRow("view") << QStringList{"export", "--view", "nope", "--out", "/tmp/x.png"} << "unknown view";
    QTest::newRow("format") << QStringList{"export", "--view", "heatmap", "--out", "/tmp/x.gif"} << "format";
    QTest::newRow("command") << QStringList{"frobnicate"} << "unknown command";
  }
  void badInputGivesAMessageAndNonZeroExit() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = run(args);
    QVERIFY(r.code != 0);
    QVERIFY2(QString(r.err).contains(message), r.err.constData());
  }

  void corruptParamsFileIsNamed() {
    const QString params = dir_.filePath("bad.json");
    QFile f(params);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"model": {"d_model": "wide"}})");
    f.close();
    Run r = run({"dump", "--params", params});
    QCOMPARE(r.code, 1);
    QVERIFY2(QString(r.err).contains("model.d_model must be an integer"), r.err.constData());
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("{\"sentence\": ");
    f.close();
    r = run({"dump", "--params", params});
    QCOMPARE(r.code, 1);
    QVERIFY2(QString(r.err).contains("not valid JSON"), r.err.constData());
  }

  void weightsTooLargeForMemoryAreRefusedBeforeAllocating() {
    // Inside every option's range, but 96 GB of weights: refused at once with the size and the budget (it took
    // 9.5 GB before being stopped).
    const Run r = run({"dump", "--d-model", "4096", "--heads", "1", "--layers", "128", "--sentence", "the cat"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("the built-in model's weights at d_model 4096 × 128 layers would take 96.0 GB (the limit"),
             r.err.constData());
  }

  void aSessionOfANewerProgramIsRefusedEverywhere() {
    // The window refused it; export, predict and generate took it as if it were theirs.
    const QString params = dir_.filePath("future.attnlab.json");
    QFile f(params);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "attnlab.params/1", "sentence": "the cat", "session": {"schema": "attnlab.session/99"}})");
    f.close();
    for (const QStringList& args :
         {QStringList{"export", "--params", params, "--view", "heatmap", "--out", dir_.filePath("x.png")},
          QStringList{"predict", "--params", params}, QStringList{"generate", "--params", params, "--steps", "1"},
          QStringList{"dump", "--params", params}}) {
      const Run r = run(args);
      QVERIFY2(r.code == 1, qPrintable(args.join(' ')));
      QVERIFY2(r.err.contains("written by a newer Attention Lab (format version 99"), r.err.constData());
    }
  }

  void exportListsItsViews() {
    const Run r = run({"export", "--list-views"});
    QCOMPARE(r.code, 0);
    const QStringList views = QString(r.out).split('\n', Qt::SkipEmptyParts);
    for (const char* v : {"heatmap", "model", "outputs", "qkv"}) QVERIFY2(views.contains(v), v);
  }

  void exportWritesEveryFormat_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("ext");
    for (const char* v : {"heatmap", "model", "outputs", "qkv"})
      for (const char* e : {"png", "svg", "pdf"}) QTest::newRow(QString("%1.%2").arg(v, e).toUtf8()) << v << e;
  }
  void exportWritesEveryFormat() {
    QFETCH(QString, view);
    QFETCH(QString, ext);
    const QString out = dir_.filePath(view + "." + ext);
    const Run r = run({"export", "--view", view, "--out", out, "--width", "640", "--height", "480"});
    QVERIFY2(r.code == 0, r.err.constData());
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    if (ext == "png") {
      QImage img;
      QVERIFY(img.loadFromData(bytes, "PNG"));
      QCOMPARE(img.size(), QSize(640, 480));
      // Not blank: a drawn heatmap has many distinct colours.
      QSet<QRgb> colours;
      for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
      QVERIFY(colours.size() > 10);
    } else if (ext == "svg") {
      QXmlStreamReader xml(bytes);
      bool sawSvg = false;
      while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("svg")) sawSvg = true;
      }
      QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
      QVERIFY(sawSvg);
    } else {
      QVERIFY(bytes.startsWith("%PDF"));
      QVERIFY(bytes.contains("%%EOF"));
    }
  }

  void pngScaleMultipliesPixels() {
    const QString out = dir_.filePath("scaled.png");
    QCOMPARE(
        run({"export", "--view", "heatmap", "--out", out, "--width", "400", "--height", "300", "--scale", "2"}).code,
        0);
    QCOMPARE(QImage(out).size(), QSize(800, 600));
  }

  void allHeadsWritesOneFilePerLayerAndHead() {
    const QString out = dir_.filePath("batch");
    const Run r = run({"export", "--view", "heatmap", "--all-heads", "--out", out, "--format", "npy", "--heads", "2",
                       "--layers", "3"});
    QVERIFY2(r.code == 0, r.err.constData());
    const QStringList files = QDir(out).entryList({"*.npy"}, QDir::Files, QDir::Name);
    QCOMPARE(files.size(), 6);
    QCOMPARE(files.first(), QString("heatmap_L0_H0.npy"));
    QCOMPARE(files.last(), QString("heatmap_L2_H1.npy"));
    QFile f(QDir(out).filePath("heatmap_L2_H1.npy"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().startsWith("\x93NUMPY"));
  }

  void aSavedSessionRebuildsItsFigureInOneCommand() {
    // The session names its own view (qkv) and colour map; no --view needed.
    const QString session = dir_.filePath("talk.attnlab.json");
    QFile f(session);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "attnlab.params/1", "sentence": "mary gave roses to susan",
               "selection": {"layer": 0, "head": 1, "view": "qkv"}, "display": {"colormap": "cividis"},
               "session": {"schema": "attnlab.session/1"}})");
    f.close();
    const QString csv = dir_.filePath("talk.csv");
    const Run r = run({"export", "--params", session, "--out", csv});
    QVERIFY2(r.code == 0, r.err.constData());
    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    const QByteArray text = c.readAll();
    QVERIFY2(text.startsWith("q_L0_H1,"), text.left(80).constData());
    QVERIFY(text.contains("\r\nsusan,"));
    const Run pdf = run(
        {"export", "--params", session, "--out", dir_.filePath("talk.pdf"), "--width-cm", "12", "--height-cm", "9"});
    QVERIFY2(pdf.code == 0, pdf.err.constData());
  }

  void helpDocumentsTheCommands() {
    const Run r = run({"--help"});
    QCOMPARE(r.code, 0);
    for (const char* s : {"dump", "export", "--sentence", "--params", "--view", "--heads", "--mode"})
      QVERIFY2(r.out.contains(s), s);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
