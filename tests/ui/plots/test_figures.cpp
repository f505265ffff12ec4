// Figures as an author gets them: matrix cells and colour bars stay crisp vectors in SVG/PDF (no
// JPEG, no resampled image), nothing interactive in a figure, readable tick labels, the attention
// colour scale (0–1 by default, per-map and shared on request), and hover read-outs that follow the
// sentence.
#include <QMouseEvent>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "core/session/session.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/colormaps.h"
#include "ui/plots/figure_export.h"
#include "ui/plots/view_style.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/view_export.h"
#include "ui/views/attention/heatmap_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

ResultPtr computeFor(const std::string& sentence) {
  Params p;
  p.sentence = sentence;
  p.model.heads = 2;
  return LiveController::compute(p, nullptr, {});
}

/// The attention scale for one test, restored afterwards (ViewStyle is one per program).
struct ScopedAttentionScale {
  explicit ScopedAttentionScale(const std::string& name) {
    DisplaySettings d;
    d.attentionScale = name;
    ViewStyle::instance().setDisplay(d);
  }
  ~ScopedAttentionScale() { ViewStyle::instance().setDisplay(DisplaySettings{}); }
};

/// `pdfimages -list` rows (after the two header lines); empty with *ran false when poppler is absent.
QStringList pdfImages(const QString& pdf, bool* ran) {
  *ran = false;
  const QString tool = QStandardPaths::findExecutable("pdfimages");
  if (tool.isEmpty()) return {};
  QProcess p;
  p.start(tool, {"-list", pdf});
  if (!p.waitForFinished(30000) || p.exitCode() != 0) return {};
  *ran = true;
  QStringList rows = QString(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
  return rows.mid(2);
}

int colourDistance(QRgb a, QRgb b) {
  return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b));
}

/// A uniform n × n attention matrix, as BERT shows on padding and a collapsed network everywhere.
Mat uniform(int n) { return Mat::Constant(n, n, 1.0f / n); }

QStringList tokens(int n) {
  QStringList t;
  for (int i = 0; i < n; ++i) t << QString("t%1").arg(i);
  return t;
}

}  // namespace

class TestFigures : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  ResultPtr result_;

  ExportRequest request(const QString& view, const QString& format) const {
    ExportRequest r;
    r.view = view;
    r.format = format;
    r.path = dir_.filePath(view + "." + format);
    return r;  // the default figure: 1200 × 900
  }

 private slots:
  void initTestCase() {
    result_ = computeFor("mary gave roses to susan");
    QVERIFY(result_->ok());
  }

  void pdfHoldsNoJpeg_data() {
    QTest::addColumn<QString>("view");
    for (const char* v : {"heatmap", "model", "qkv", "outputs", "variants", "collapse", "feature-maps"})
      QTest::newRow(v) << v;
  }
  void pdfHoldsNoJpeg() {
    QFETCH(QString, view);
    const ExportRequest r = request(view, "pdf");
    QCOMPARE(exportView(result_, r), QString());
    bool ran = false;
    const QStringList images = pdfImages(r.path, &ran);
    if (!ran) QSKIP("pdfimages (poppler-utils) is not installed");
    for (const QString& row : images) QVERIFY2(!row.contains(" jpeg "), qPrintable(row));
    // The heatmap's 5 × 5 cells and its colour bar are rectangles: no image at all.
    if (view == "heatmap") QVERIFY2(images.isEmpty(), qPrintable(images.join('\n')));
  }

  void svgCellsAreRectanglesAndStaySharpAt4x() {
    QString error;
    const auto view = makeOffscreenView("heatmap", result_, QSize(600, 450), 1, &error);
    QVERIFY2(view, qPrintable(error));
    MatrixPlot* plot = static_cast<HeatmapView*>(view.get())->plot();
    const QString path = dir_.filePath("cells.svg");
    QCOMPARE(exportWidget(view.get(), path, "svg"), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray svg = f.readAll();
    QVERIFY2(!svg.contains("<image"), "cells and colour bar are vectors, not an embedded raster");
    // 25 cells (equal runs merged) plus the bar's 256 levels, each a filled shape.
    const int shapes = static_cast<int>(svg.count("<path") + svg.count("<rect"));
    QVERIFY2(shapes >= 256, qPrintable(QString::number(shapes)));

    // The edge between the two columns of row 0 whose colours differ most, at 4×.
    const Mat& a = plot->matrix();
    int edge = 0;
    for (int c = 1; c + 1 < a.cols(); ++c)
      if (std::abs(a(0, c) - a(0, c + 1)) > std::abs(a(0, edge) - a(0, edge + 1))) edge = c;
    const QPoint origin = plot->mapTo(view.get(), QPoint(0, 0));
    const double x = (origin.x() + plot->xAxis->coordToPixel(edge + 0.5)) * 4;
    const int y = static_cast<int>((origin.y() + plot->yAxis->coordToPixel(0)) * 4);
    QImage img(view->size() * 4, QImage::Format_ARGB32);
    img.fill(Qt::white);
    QPainter painter(&img);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);  // as a viewer would scale an image
    QSvgRenderer(svg).render(&painter);
    painter.end();
    const int x0 = static_cast<int>(x);
    const QRgb left = img.pixel(x0 - 10, y), right = img.pixel(x0 + 10, y);
    QVERIFY2(colourDistance(left, right) > 30, "the two cells differ in colour");
    int blended = 0;
    for (int px = x0 - 10; px <= x0 + 10; ++px) {
      const QRgb c = img.pixel(px, y);
      if (colourDistance(c, left) > 6 && colourDistance(c, right) > 6) ++blended;
    }
    QVERIFY2(blended <= 1, qPrintable(QString("%1 blended pixels across a cell edge").arg(blended)));
  }

  void bigMatrixIsALosslessBlockImage() {
    // Above 256 × 256 cells a vector figure embeds one image, each cell a block, never JPEG.
    MatrixPlot plot;
    plot.resize(400, 400);
    Mat m = Mat::Zero(300, 300);
    for (int i = 0; i < 300; ++i) m(i, (i * 7) % 300) = 1;
    plot.setMatrix(m, tokens(300), tokens(300));
    plot.replot();
    const QString path = dir_.filePath("big.pdf");
    QCOMPARE(exportWidget(&plot, path, "pdf"), QString());
    bool ran = false;
    const QStringList images = pdfImages(path, &ran);
    if (!ran) QSKIP("pdfimages (poppler-utils) is not installed");
    QCOMPARE(images.size(), 1);
    QVERIFY2(!images[0].contains(" jpeg "), qPrintable(images[0]));
    const QStringList cols = images[0].split(' ', Qt::SkipEmptyParts);  // page num type width height …
    QVERIFY2(cols.size() > 4 && cols[3].toInt() >= 300 && cols[3].toInt() % 300 == 0, qPrintable(images[0]));
  }

  void exportedHeatmapHasNoHoverStrip() {
    QString error;
    const auto view = makeOffscreenView("heatmap", result_, QSize(1200, 900), 1, &error);
    QVERIFY2(view, qPrintable(error));
    auto* heatmap = static_cast<HeatmapView*>(view.get());
    QVERIFY(!heatmap->hoverStrip()->isVisible());
    QVERIFY2(heatmap->plot()->height() >= view->height() - 8, "the plot fills the figure's height");
  }

  void copiedImageLeavesOutScreenOnlyWidgets() {
    // The window's own view (strip shown) copied to the clipboard: the strip is not painted.
    HeatmapView view;
    view.resize(500, 400);
    view.show();
    view.showResult(result_);
    QLabel* strip = view.hoverStrip();
    strip->setAutoFillBackground(true);
    QPalette pal = strip->palette();
    pal.setColor(QPalette::Window, QColor(255, 0, 255));
    strip->setPalette(pal);
    QVERIFY(strip->isVisible());
    const QImage img = renderWidgetImage(&view, 1);
    for (int y = 0; y < img.height(); y += 2)
      for (int x = 0; x < img.width(); x += 2) QVERIFY(img.pixel(x, y) != qRgb(255, 0, 255));
  }

  void tickLabelsReadOnASlide() {
    QString error;
    const auto view = makeOffscreenView("heatmap", result_, QSize(1200, 900), 1, &error);
    QVERIFY2(view, qPrintable(error));
    const double pt = static_cast<HeatmapView*>(view.get())->plot()->tickLabelPointSize();
    QVERIFY2(pt >= 11 && pt <= 13, qPrintable(QString::number(pt)));
    MatrixPlot thumb;  // a thumbnail: smaller, but not below 7 pt
    thumb.resize(160, 120);
    QVERIFY2(thumb.tickLabelPointSize() >= 7 && thumb.tickLabelPointSize() < pt, qPrintable(QString::number(pt)));
  }

  void uniformAttentionIsDarkOnTheUnitScale() {
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setMatrix(uniform(9), tokens(9), tokens(9));
    QCOMPARE(plot.colorRange().lower, 0.0);
    QCOMPARE(plot.colorRange().upper, 1.0);
    const QColor expected = gradient(ColorMap::Viridis).color(1.0 / 9, QCPRange(0, 1));
    QCOMPARE(plot.colorOf(1.0 / 9), expected);
    QVERIFY(plot.colorOf(1.0 / 9) != plot.colorOf(1.0));
    // And the drawn cell has that colour (the centre of the matrix).
    plot.resize(400, 400);
    plot.replot();
    const QImage img = plot.toPixmap(400, 400).toImage();
    const QPoint centre(static_cast<int>(plot.xAxis->coordToPixel(4)), static_cast<int>(plot.yAxis->coordToPixel(4)));
    QVERIFY2(colourDistance(img.pixel(centre), expected.rgb()) <= 6, qPrintable(QColor(img.pixel(centre)).name()));
  }

  void perMapScaleStretchesToTheMapsMaximum() {
    ScopedAttentionScale scale("per-map");
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setMatrix(uniform(9), tokens(9), tokens(9));
    QCOMPARE(plot.colorRange().lower, 0.0);
    QVERIFY(qFuzzyCompare(plot.colorRange().upper, static_cast<double>(1.0f / 9)));
    QCOMPARE(plot.colorOf(1.0f / 9), plot.colorOf(1.0));  // the old look: the top colour
  }

  void sharedScaleUsesTheGroupMaximum() {
    ScopedAttentionScale scale("shared");
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setMatrix(uniform(9), tokens(9), tokens(9));
    plot.setGroupMax(0.5);
    QCOMPARE(plot.colorRange().upper, 0.5);
    plot.setGroupMax(0);  // no group: its own maximum
    QVERIFY(qFuzzyCompare(plot.colorRange().upper, static_cast<double>(1.0f / 9)));
  }

  void changingTheScaleRedrawsOpenPlots() {
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setMatrix(uniform(4), tokens(4), tokens(4));
    QCOMPARE(plot.colorRange().upper, 1.0);
    ScopedAttentionScale scale("per-map");
    QVERIFY(qFuzzyCompare(plot.colorRange().upper, 0.25));
  }

  void modelGridFollowsTheAttentionScale() {
    // The top colour of the map marks a weight at the top of the scale: on 0–1 no weight of this
    // model reaches it; per map, every thumbnail's own maximum does.
    const QRgb top = colorAt(ColorMap::Viridis, 1.0);
    const auto topPixels = [&] {
      QString error;
      const auto view = makeOffscreenView("model", result_, QSize(800, 600), 1, &error);
      const QImage img = renderWidgetImage(view.get(), 1);
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) n += (img.pixel(x, y) & 0xFFFFFF) == (top & 0xFFFFFF);
      return n;
    };
    float maxWeight = 0;
    for (const LayerTrace& l : result_->trace().layers)
      for (const HeadTrace& h : l.heads) maxWeight = std::max(maxWeight, h.attention.maxCoeff());
    QVERIFY(maxWeight < 0.999f);
    QCOMPARE(topPixels(), 0);
    ScopedAttentionScale scale("per-map");
    const int heads = result_->trace().layerCount() * result_->trace().headCount();
    QVERIFY2(topPixels() >= heads * 25, qPrintable(QString::number(topPixels())));
  }

  void attentionScaleRoundTripsThroughJson() {
    Params p;
    p.display.attentionScale = "shared";
    const nlohmann::json j = toJson(p);
    QCOMPARE(j["display"]["attention_scale"].get<std::string>(), std::string("shared"));
    QCOMPARE(paramsFromJson(j).display.attentionScale, std::string("shared"));
    QCOMPARE(sessionFromJson(sessionToJson(p)).display.attentionScale, std::string("shared"));
  }

  void sessionWithoutTheFieldGetsTheUnitScale() {
    nlohmann::json j = sessionToJson(Params{});
    QVERIFY(j.dump().find("attention_scale") != std::string::npos);
    // An older session: the display object has no attention_scale.
    const std::string old = R"({"schema": "attnlab.params/1", "sentence": "a b", "display": {"colormap": "magma"}})";
    const Params p = paramsFromJson(parseJsonText(old, "old"));
    QCOMPARE(p.display.attentionScale, std::string("unit"));
    QCOMPARE(p.display.colormap, std::string("magma"));
  }

  void unknownAttentionScaleIsNamed() {
    const std::string bad = R"({"display": {"attention_scale": "logarithmic"}})";
    try {
      paramsFromJson(parseJsonText(bad, "bad"));
      QFAIL("an unknown scale must be refused");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(
                   "display.attention_scale is 'logarithmic' (use unit, per-map, shared, row or log)"),
               e.what());
    }
  }

  void hoverReadOutForgetsTheOldSentence() {
    HeatmapView view;
    view.resize(500, 400);
    view.show();
    view.showResult(result_);
    MatrixPlot* plot = view.plot();
    plot->replot();
    const QPointF cell(plot->xAxis->coordToPixel(2), plot->yAxis->coordToPixel(4));  // "susan" → "roses"
    QMouseEvent move(QEvent::MouseMove, cell, plot->mapToGlobal(cell), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    QVERIFY2(view.hoverStrip()->text().contains("susan"), qPrintable(view.hoverStrip()->text()));
    QSignalSpy hovered(plot, &MatrixPlot::cellHovered);
    view.showResult(computeFor("the cat sat on the mat"));
    QVERIFY2(!view.hoverStrip()->text().contains("susan"), qPrintable(view.hoverStrip()->text()));
    QVERIFY(!view.hoverStrip()->text().contains("roses"));
    // The plot told its listeners: the cell it named is gone (the cursor is not over it offscreen).
    QVERIFY(!hovered.isEmpty());
    QCOMPARE(hovered.last().at(0).toInt(), -1);
  }
};

ATTNLAB_TEST_MAIN(TestFigures)
#include "test_figures.moc"
