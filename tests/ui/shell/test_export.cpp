// Export of figures and numbers, parsed back: NPY through an independent reader (and numpy's own
// bytes), CSV and JSON literally, PNG/SVG/PDF of every view through Qt's readers.
#include <QAbstractButton>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <cstring>

#include "core/base/errors.h"
#include "core/base/npy.h"
#include "core/session/view_numbers.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/view_export.h"
#include "ui/shell/view_factory.h"
#include "ui/views/common/background_job.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// An export of `view` to `path` in `format`, every other field at its default.
ExportRequest request(const QString& view, const QString& path, const QString& format) {
  ExportRequest r;
  r.view = view;
  r.path = path;
  r.format = format;
  return r;
}

/// A reader written from the format description, sharing no code with the writer.
struct NpyArray {
  QString descr;
  bool fortran = true;
  QList<int> shape;
  QList<double> values;
};

NpyArray readNpy(const QByteArray& b) {
  NpyArray a;
  if (!b.startsWith(QByteArray("\x93NUMPY\x01\x00", 8))) return a;
  const int hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  const QString header = QString::fromLatin1(b.mid(10, hlen));
  if (!header.endsWith('\n') || (10 + hlen) % 64 != 0) return a;
  a.descr = QRegularExpression("'descr': '([^']*)'").match(header).captured(1);
  a.fortran = QRegularExpression("'fortran_order': (True|False)").match(header).captured(1) == "True";
  const QString shape = QRegularExpression("'shape': \\(([^)]*)\\)").match(header).captured(1);
  for (const QString& s : shape.split(',', Qt::SkipEmptyParts)) a.shape << s.trimmed().toInt();
  const int width = a.descr == "<f4" ? 4 : 8;
  for (qsizetype off = 10 + hlen; off + width <= b.size(); off += width) {
    if (width == 4) {
      float f;
      std::memcpy(&f, b.constData() + off, 4);
      a.values << f;
    } else {
      double d;
      std::memcpy(&d, b.constData() + off, 8);
      a.values << d;
    }
  }
  return a;
}

QByteArray bytes(const std::string& s) { return QByteArray(s.data(), static_cast<qsizetype>(s.size())); }

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

MatD m23() {
  MatD m(2, 3);
  m << -1, -0.5, 0, 0.5, 1, 1.5;
  return m;
}

ViewNumbers sample() {
  ViewNumbers n;
  n.view = "heatmap";
  n.title = "t";
  MatD a(2, 2);
  a << 0.25, 0.75, 1, 0;
  n.matrices.push_back({"attention_L0_H0", "Attention", a, {"the", "cat, \"big\""}, {"the", "cat, \"big\""}});
  return n;
}

}  // namespace

class TestExport : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  ResultPtr result_;

 private slots:
  void initTestCase() {
    Params p;
    p.sentence = "mary gave roses to susan";
    p.model.heads = 2;
    result_ = LiveController::compute(p, nullptr, {});
    QVERIFY(result_->ok());
  }

  // An export waits for the view's background analyses: the rank-collapse and paths views ran theirs on
  // jobs the view did not own as children, so isReady() said "ready" at once and the figure showed
  // "Computing the deep stacks…" over empty plots.
  void exportWaitsForTheDepthViews_data() {
    QTest::addColumn<QString>("view");
    QTest::newRow("collapse") << "collapse";
    QTest::newRow("paths") << "paths";
  }
  void exportWaitsForTheDepthViews() {
    QFETCH(QString, view);
    std::unique_ptr<TraceView> v(createView(view));
    v->setAttribute(Qt::WA_DontShowOnScreen);
    v->resize(900, 700);
    v->show();
    v->showResult(result_);
    QVERIFY(!v->findChildren<BackgroundJob*>().isEmpty());
    QVERIFY(!v->isReady());  // its analysis has only just started
    QVERIFY(waitUntilReady(v.get()));
    for (const BackgroundJob* job : v->findChildren<BackgroundJob*>()) QVERIFY(!job->busy());
  }

  // A figure is the plot, its title, axes and colour bar: no spin box, slider, combo box, check box or
  // button of any view is shown in the view laid out for an export.
  void figuresHoldNoControls_data() {
    QTest::addColumn<QString>("view");
    for (const QString& v : viewNames()) QTest::newRow(qPrintable(v)) << v;
  }
  void figuresHoldNoControls() {
    QFETCH(QString, view);
    QString error;
    const auto v = makeOffscreenView(view, result_, QSize(1200, 900), 1.0, &error);
    QVERIFY2(v, qPrintable(error));
    QStringList shown;
    for (QWidget* w : v->findChildren<QWidget*>()) {
      const bool control = qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QAbstractSlider*>(w) ||
                           qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractButton*>(w);
      if (control && w->isVisible() && !qobject_cast<QScrollBar*>(w))
        shown << QString("%1 %2").arg(w->metaObject()->className(), w->objectName());
    }
    QVERIFY2(shown.isEmpty(), qPrintable(shown.join(", ")));
  }

  void npyMatchesNumpyByteForByte_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("ours");
    QTest::newRow("2x3 f8") << "matrix_2x3_f8.npy" << bytes(npyBytes(m23()));
    QTest::newRow("2x3 f4") << "matrix_2x3_f4.npy" << bytes(npyBytes(m23(), NpyType::Float32));
    QTest::newRow("stack f8") << "stack_2x2x3_f8.npy" << bytes(npyBytes(std::vector<MatD>{m23(), -m23()}));
    QTest::newRow("vector f8") << "vector_5_f8.npy" << bytes(npyBytes({1, 2, 3, 4, 1e-300}, {5}));
  }
  void npyMatchesNumpyByteForByte() {
    QFETCH(QString, file);
    QFETCH(QByteArray, ours);
    const QByteArray numpy = readAll(QString(ATTNLAB_TEST_DATA) + "/reference/npy/" + file);
    QVERIFY(!numpy.isEmpty());
    QCOMPARE(ours, numpy);
  }

  void npyReadsBackThroughAnIndependentReader_data() {
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("descr");
    QTest::addColumn<QList<int>>("shape");
    QTest::addColumn<QList<double>>("values");
    const QList<double> v{-1, -0.5, 0, 0.5, 1, 1.5};
    QTest::newRow("matrix") << bytes(npyBytes(m23())) << "<f8" << QList<int>{2, 3} << v;
    QTest::newRow("float32") << bytes(npyBytes(m23(), NpyType::Float32)) << "<f4" << QList<int>{2, 3} << v;
    QTest::newRow("stack") << bytes(npyBytes(std::vector<MatD>{m23(), m23()})) << "<f8" << QList<int>{2, 2, 3}
                           << (v + v);
    QTest::newRow("empty") << bytes(npyBytes(MatD(0, 4))) << "<f8" << QList<int>{0, 4} << QList<double>{};
  }
  void npyReadsBackThroughAnIndependentReader() {
    QFETCH(QByteArray, data);
    QFETCH(QString, descr);
    QFETCH(QList<int>, shape);
    QFETCH(QList<double>, values);
    const NpyArray a = readNpy(data);
    QCOMPARE(a.descr, descr);
    QCOMPARE(a.fortran, false);
    QCOMPARE(a.shape, shape);
    QCOMPARE(a.values, values);
  }

  void numpyLoadsOurFileWhenAvailable() {
    QProcess probe;
    probe.start("/usr/bin/python3", {"-c", "import numpy"});
    if (!probe.waitForFinished(20000) || probe.exitCode() != 0) QSKIP("no numpy at /usr/bin/python3");
    const QString path = dir_.filePath("m.npy");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes(npyBytes(std::vector<MatD>{m23(), -m23()})));
    f.close();
    QProcess py;
    py.start("/usr/bin/python3",
             {"-c", "import numpy, sys; a = numpy.load(sys.argv[1]); print(a.shape, a.dtype, a[1, 1, 2])", path});
    QVERIFY(py.waitForFinished(20000));
    QCOMPARE(QString(py.readAllStandardOutput()).trimmed(), QString("(2, 2, 3) float64 -1.5"));
  }

  void csvQuotesLabelsAndKeepsValues() {
    // Hand-written: RFC 4180 quoting, the matrix name in the corner, shortest round-trip numbers.
    const std::string expected =
        "attention_L0_H0,the,\"cat, \"\"big\"\"\"\r\n"
        "the,0.25,0.75\r\n"
        "\"cat, \"\"big\"\"\",1,0\r\n";
    QCOMPARE(QString::fromStdString(numbersToCsv(sample())), QString::fromStdString(expected));
  }

  void csvWritesFloatsShortAndDoublesExactly() {
    ViewNumbers n;
    MatD v(1, 2);
    v << static_cast<double>(0.1f), 0.1;
    n.matrices.push_back({"m", "", v, {"r"}, {"a", "b"}});
    QCOMPARE(QString::fromStdString(numbersToCsv(n)), QString("m,a,b\r\nr,0.1,0.1\r\n"));
  }

  void jsonHoldsLabelsShapeAndValues() {
    const nlohmann::json j = nlohmann::json::parse(numbersToJson(sample()).dump());
    QCOMPARE(j["schema"].get<std::string>(), std::string(kNumbersSchema));
    const auto& m = j["matrices"][0];
    QCOMPARE(m["shape"][0].get<int>(), 2);
    QCOMPARE(m["rows"][1].get<std::string>(), std::string("cat, \"big\""));
    QCOMPARE(m["values"][0][1].get<double>(), 0.75);
  }

  void npyOfMixedShapesNamesTheChoices() {
    ViewNumbers n = sample();
    n.matrices.push_back({"q", "", m23(), {}, {}});
    try {
      numbersToNpy(n);
      QFAIL("mixed shapes must be refused");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("--matrix NAME (attention_L0_H0, q)"), e.what());
    }
    QCOMPARE(readNpy(bytes(numbersToNpy(n, "q"))).shape, (QList<int>{2, 3}));
  }

  void everyViewExportsEveryFormat_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("format");
    for (const QString& v : viewNames())
      for (const QString& f : exportFormats()) QTest::newRow(qPrintable(v + "." + f)) << v << f;
  }
  void everyViewExportsEveryFormat() {
    QFETCH(QString, view);
    QFETCH(QString, format);
    ExportRequest r;
    r.view = view;
    r.format = format;
    r.path = dir_.filePath(view + "." + format);
    r.size.width = 640;
    r.size.height = 480;
    r.matrix = view == "qkv"             ? "scores_L0_H0"
               : view == "outputs"       ? "attention_out_L0"
               : view == "heads"         ? "score_previous_token"
               : view == "similar_heads" ? "similarity"
                                         : "";
    // The built-in model has no vocabulary: the Prediction views draw a message and have no numbers; nor has the
    // head_contexts view before a corpus is scanned, nor the cross view without an encoder–decoder.
    const bool needsVocabulary = view == "prediction" || view == "attribution" || view == "patching" ||
                                 view == "head_contexts" || view == "cross";
    // The Heads views' rows are heads and probe tokens, not the sentence's tokens.
    const bool sentenceRows = view != "heads" && view != "similar_heads";
    if (needsVocabulary && format != "png" && format != "svg" && format != "pdf") {
      QVERIFY(exportView(result_, r).contains("has no numbers to export"));
      return;
    }
    QCOMPARE(exportView(result_, r), QString());
    const QByteArray b = readAll(r.path);
    if (format == "png") {
      QImage img;
      QVERIFY(img.loadFromData(b, "PNG"));
      QCOMPARE(img.size(), QSize(640, 480));
    } else if (format == "svg") {
      QXmlStreamReader xml(b);
      while (!xml.atEnd()) xml.readNext();
      QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
      QSvgRenderer svg(b);
      QVERIFY(svg.isValid());
      QImage img(320, 240, QImage::Format_ARGB32);
      img.fill(Qt::white);
      QPainter painter(&img);
      svg.render(&painter);
      painter.end();
      QSet<QRgb> colours;
      for (int y = 0; y < img.height(); y += 5)
        for (int x = 0; x < img.width(); x += 5) colours.insert(img.pixel(x, y));
      QVERIFY2(colours.size() > 5, "the SVG renders to a drawing, not a blank page");
    } else if (format == "pdf") {
      // No PDF rasteriser is installed: check the structure a reader needs instead.
      QVERIFY(b.startsWith("%PDF-"));
      QVERIFY(b.trimmed().endsWith("%%EOF"));
      const auto xref = QRegularExpression("startxref\\s+(\\d+)").match(QString::fromLatin1(b));
      QVERIFY(xref.hasMatch());
      QVERIFY(b.mid(xref.captured(1).toInt(), 4) == "xref");
      QVERIFY(b.contains("/Type /Page"));
      QVERIFY2(b.contains("/FontFile2"), "fonts are embedded");
    } else if (format == "npy") {
      const NpyArray a = readNpy(b);
      QVERIFY(a.shape.size() >= 2);
      QVERIFY(!a.values.isEmpty());
    } else if (format == "json") {
      const auto j = nlohmann::json::parse(b.toStdString());
      QCOMPARE(j["view"].get<std::string>(), view.toStdString());
      QVERIFY(!j["matrices"].empty());
      if (sentenceRows) QCOMPARE(j["matrices"][0]["rows"][0].get<std::string>(), std::string("mary"));
    } else {
      QVERIFY(sentenceRows ? b.contains("\r\nmary,") : b.count(',') > 8);
    }
  }

  void heatmapNumbersAreTheDrawnAttention() {
    ExportRequest r = request("heatmap", dir_.filePath("a.npy"), "npy");
    const ResultPtr sel = withSelection(result_, 1, 1);
    QCOMPARE(exportView(sel, r), QString());
    const NpyArray a = readNpy(readAll(r.path));
    const Mat& expected = result_->trace().layers[1].heads[1].attention;
    QCOMPARE(a.shape, (QList<int>{5, 5}));
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) QCOMPARE(a.values[i * 5 + j], static_cast<double>(expected(i, j)));
  }

  void centimetresSetThePrintedSize() {
    ExportRequest r = request("heatmap", dir_.filePath("cm.png"), "png");
    r.size = {8, 6, FigureSize::Unit::Centimetres, 300};
    QCOMPARE(exportView(result_, r), QString());
    const QImage img(r.path);
    // 8 cm at 300 dpi is 944.9 px; laid out at round(8/2.54·96) = 302 px, × 300/96 → within a pixel.
    QVERIFY2(qAbs(img.width() - 945) <= 1, qPrintable(QString::number(img.width())));
    QCOMPARE(qRound(img.dotsPerMeterX() * 0.0254), 300);
    r.path = dir_.filePath("cm.pdf");
    r.format = "pdf";
    QCOMPARE(exportView(result_, r), QString());
    // 80 mm × 60 mm = 226.77 pt × 170.08 pt; Qt rounds the page to whole points
    QVERIFY2(readAll(r.path).contains("/MediaBox [0 0 227.000000 170.000000]"), readAll(r.path).left(600).constData());
  }

  void unknownViewIsAMessage() {
    ExportRequest r = request("variants-not-here", dir_.filePath("x.png"), "png");
    QVERIFY(exportView(result_, r).contains("unknown view"));
  }
};

ATTNLAB_TEST_MAIN(TestExport)
#include "test_export.moc"
