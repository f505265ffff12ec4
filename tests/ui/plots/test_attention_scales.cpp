// The attention colour scales (ui/plots/attention_scale.h, issue 31): row-normalised and log next to 0–1, each
// cell's colour hand-computed from its weight, in the matrix plot and the zoomable heatmap; the colour bar names
// the scale in force; the log floor and decade labels; the choice is a session field like the others. And the hover
// band: on a map, the column under the cursor is banded, not the query's own.
#include <QMouseEvent>
#include <QToolTip>
#include <QtTest>

#include <cmath>

#include "core/session/params_json.h"
#include "core/session/session.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/plots/view_style.h"
#include "ui/plots/zoomable_heatmap.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

struct ScopedAttentionScale {
  explicit ScopedAttentionScale(const std::string& name) {
    DisplaySettings d;
    d.attentionScale = name;
    ViewStyle::instance().setDisplay(d);
  }
  ~ScopedAttentionScale() { ViewStyle::instance().setDisplay(DisplaySettings{}); }
};

/// Rows: a causal map's first row (1), an even split, and weights of very different sizes.
Mat causal3() {
  Mat m(3, 3);
  m << 1.0f, 0.0f, 0.0f,  //
      0.5f, 0.5f, 0.0f,   //
      0.01f, 0.19f, 0.8f;
  return m;
}

QStringList tokens(int n) {
  QStringList t;
  for (int i = 0; i < n; ++i) t << QString("t%1").arg(i);
  return t;
}

QColor viridisAt(double t) { return QColor::fromRgb(gradient(ColorMap::Viridis).color(t, QCPRange(0, 1))); }

std::shared_ptr<MapPyramid> pyramidOf(const Mat& m) {
  auto p = std::make_shared<MapPyramid>();
  p->build(m);
  return p;
}

}  // namespace

class TestAttentionScales : public QObject {
  Q_OBJECT
 private slots:
  void floorsAndDecades() {
    // 10^−max(3, ⌈log₁₀ n⌉ + 1): 3 keys → 10⁻³; 300 → ⌈2.48⌉ + 1 = 4; 8,192 → ⌈3.91⌉ + 1 = 5.
    QCOMPARE(logFloor(3), 1e-3);
    QCOMPARE(logFloor(300), 1e-4);
    QCOMPARE(logFloor(8192), 1e-5);
    QCOMPARE(logPosition(0.01, 1e-3), 1.0 / 3);  // (−2 + 3) / 3
    QCOMPARE(logPosition(1.0, 1e-3), 1.0);
    QCOMPARE(logPosition(0.0, 1e-3), 0.0);
    QCOMPARE(logPosition(1e-4, 1e-3), 0.0);  // below the floor: the darkest colour
    QCOMPARE(decadeLabel(0), QString("1"));
    QCOMPARE(decadeLabel(-2), QString("0.01"));
    QCOMPARE(decadeLabel(-5), QString("10⁻⁵"));
  }

  void matrixPlotRowScale() {
    ScopedAttentionScale scale("row");
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setMatrix(causal3(), tokens(3), tokens(3));
    QCOMPARE(plot.colorBarLabel(), QString("weight ÷ row max"));
    // Row 1: 0.5 / 0.5 = 1, the top colour (on 0–1 it is the middle); row 2: 0.19 / 0.8 = 0.2375.
    QCOMPARE(plot.cellColor(1, 0), viridisAt(1.0));
    QCOMPARE(plot.cellColor(1, 2), viridisAt(0.0));
    QCOMPARE(plot.cellColor(2, 1), viridisAt(0.2375));
    QCOMPARE(plot.cellColor(2, 2), viridisAt(1.0));
    QCOMPARE(plot.matrix()(2, 1), 0.19f);  // the hover still reads the weight
  }

  void matrixPlotLogScale() {
    ScopedAttentionScale scale("log");
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setMatrix(causal3(), tokens(3), tokens(3));
    QCOMPARE(plot.colorBarLabel(), QString("weight (log)"));
    // Floor 10⁻³ for 3 keys: t = (log₁₀ w + 3) / 3. 0.01 → 1/3; 0.5 → (3 − 0.30103) / 3 = 0.89966; 0 → 0.
    // (The stored weight is the float 0.01f, a hair below 0.01: its t a hair below 1/3, on the next colour level down.)
    QCOMPARE(plot.cellColor(2, 0), viridisAt((std::log10(double(0.01f)) + 3) / 3));
    QVERIFY(std::abs((std::log10(double(0.01f)) + 3) / 3 - 1.0 / 3) < 1e-7);
    QCOMPARE(plot.cellColor(1, 0), viridisAt(0.89966));
    QCOMPARE(plot.cellColor(0, 1), viridisAt(0.0));
    QCOMPARE(plot.cellColor(0, 0), viridisAt(1.0));
    QCOMPARE(plot.colorOf(0.5), viridisAt(0.89966));
  }

  void matrixPlotUnitScaleAndSwitchingBack() {
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setMatrix(causal3(), tokens(3), tokens(3));
    QCOMPARE(plot.colorBarLabel(), QString("weight"));
    QCOMPARE(plot.cellColor(1, 0), viridisAt(0.5));
    {
      ScopedAttentionScale scale("row");  // an open plot recolours
      QCOMPARE(plot.cellColor(1, 0), viridisAt(1.0));
    }
    QCOMPARE(plot.cellColor(1, 0), viridisAt(0.5));
    QCOMPARE(plot.colorBarLabel(), QString("weight"));
    // Signed or fixed ranges ignore the attention scale and carry no weight label.
    ScopedAttentionScale scale("log");
    plot.setFixedRange(0, 2);
    QCOMPARE(plot.cellColor(1, 0), viridisAt(0.25));
    QCOMPARE(plot.colorBarLabel(), QString());
  }

  void rowScaleCanSkipTheDiagonal() {
    // A similarity map: a row's largest similarity to another head sets its top colour.
    ScopedAttentionScale scale("row");
    Mat s(3, 3);
    s << 1.0f, 0.4f, 0.2f,  //
        0.4f, 1.0f, 0.8f,   //
        0.2f, 0.8f, 1.0f;
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setRowMaxSkipsDiagonal(true);
    plot.setMatrix(s, tokens(3), tokens(3));
    QCOMPARE(plot.cellColor(0, 1), viridisAt(1.0));  // 0.4 / 0.4
    QCOMPARE(plot.cellColor(0, 2), viridisAt(0.5));  // 0.2 / 0.4
    QCOMPARE(plot.cellColor(1, 0), viridisAt(0.5));  // 0.4 / 0.8
    QCOMPARE(plot.cellColor(0, 0), viridisAt(1.0));  // 1 / 0.4, clamped to the top
  }

  void zoomableHeatmapLogScale() {
    ScopedAttentionScale scale("log");
    ZoomableHeatmap w;
    w.resize(500, 400);
    w.setPyramid(pyramidOf(causal3()), tokens(3), tokens(3));
    const auto& table = colorTable(ColorMap::Viridis);
    QCOMPARE(w.cellColor(2, 0), lookup(table, 1.0 / 3));
    QCOMPARE(w.cellColor(1, 1), lookup(table, 0.89966));
    QCOMPARE(w.cellColor(0, 2), lookup(table, 0.0));
    // The drawn pixel at the cell's centre has that colour.
    const QImage img = w.grab().toImage();
    const QRect plot = w.plotRect();
    const QPoint centre(plot.left() + static_cast<int>(w.scale() * 0.5),
                        plot.top() + static_cast<int>(w.scale() * 2.5));
    QCOMPARE(img.pixel(centre), lookup(table, 1.0 / 3));
  }

  void barLabelsNameTheScale() {
    QCOMPARE(attentionScaleBarLabel(AttentionScale::Unit), QString("weight"));
    QCOMPARE(attentionScaleBarLabel(AttentionScale::Row), QString("weight ÷ row max"));
    QCOMPARE(attentionScaleBarLabel(AttentionScale::Log), QString("weight (log)"));
    QCOMPARE(attentionScaleTitleNote(AttentionScale::Unit), QString());
    QCOMPARE(attentionScaleTitleNote(AttentionScale::Row), QString(" · each row to its max"));
    QCOMPARE(attentionScaleTitleNote(AttentionScale::Log), QString(" · log colours"));
  }

  void hoverBandFollowsTheCursorsColumn() {
    MatrixPlot plot;
    plot.setRangeMode(MatrixPlot::Range::UnitInterval);
    plot.setTokenAxes(true, true);
    plot.resize(400, 400);
    plot.setMatrix(causal3(), tokens(3), tokens(3));
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    // As the heatmap view does: the hovered cell's query becomes the hovered token.
    connect(&plot, &MatrixPlot::cellHovered, &plot, [&plot](int r, int, double) { plot.setTokenMarks({}, r); });
    const QPoint cell(static_cast<int>(plot.xAxis->coordToPixel(0)), static_cast<int>(plot.yAxis->coordToPixel(2)));
    QTest::mouseMove(&plot, cell);
    QTRY_COMPARE(plot.markedHover(), 2);
    QCOMPARE(plot.hoverBandColumn(), 0);  // the key under the cursor, not column 2
    // The tooltip of an attention map reads as an edge; a namer says what another matrix's cell is.
    QTRY_VERIFY2(QToolTip::text().startsWith("t2 [2] → t0 [0]"), qPrintable(QToolTip::text()));
    plot.setCellNamer([](int r, int c) { return QString("layer %1 head %2, position 7").arg(r).arg(c); });
    QTest::mouseMove(&plot, cell + QPoint(1, 0));
    QTRY_VERIFY2(QToolTip::text().startsWith("layer 2 head 0, position 7"), qPrintable(QToolTip::text()));
    plot.setTokenMarks({}, 1);  // hovered elsewhere (another view): the token's own column
    QCOMPARE(plot.hoverBandColumn(), 1);

    ZoomableHeatmap w;
    w.resize(500, 400);
    w.setPyramid(pyramidOf(causal3()), tokens(3), tokens(3));
    const QRect r = w.plotRect();
    const QPointF pos(r.left() + w.scale() * 0.5, r.top() + w.scale() * 2.5);  // cell (2, 0)
    QMouseEvent move(QEvent::MouseMove, pos, w.mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &move);
    w.setTokenMarks({}, 2);
    QCOMPARE(w.hoverBandColumn(), 0);
    w.setTokenMarks({}, 1);
    QCOMPARE(w.hoverBandColumn(), 1);
  }

  void theChoiceIsSavedWithTheSession() {
    for (const char* name : {"row", "log"}) {
      Params p;
      p.display.attentionScale = name;
      p.sentence = "an edit keeps the scale";
      QCOMPARE(sessionFromJson(sessionToJson(p)).display.attentionScale, std::string(name));
      QCOMPARE(paramsFromJson(toJson(p)).display.attentionScale, std::string(name));
    }
  }
};

ATTNLAB_TEST_MAIN(TestAttentionScales)
#include "test_attention_scales.moc"
