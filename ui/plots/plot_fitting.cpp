#include "ui/plots/plot_fitting.h"

#include <qcustomplot.h>
#include <QApplication>
#include <algorithm>
#include <cmath>
#include <optional>
#include <typeinfo>
#include <vector>

namespace attnlab::ui {
namespace {

constexpr char kInstalled[] = "attnlabPlotFitting";
constexpr char kBaseText[] = "attnlabFitBaseText";  ///< the title as the view set it
constexpr char kFitText[] = "attnlabFitText";       ///< the title as fitting last set it
constexpr char kBasePt[] = "attnlabFitBasePt";
constexpr char kFitPt[] = "attnlabFitPt";
constexpr char kOwnTicker[] = "attnlabOwnTicker";  ///< the ticker fitting gave the axis (its address)
constexpr char kRounds[] = "attnlabFitRounds";     ///< replots fitting asked for in a row

/// Gives `axis` a ticker of its own (a copy of a log or plain ticker, once): views share one ticker between axes and
/// plots, and fitting a shared ticker to axes of different lengths flipped its count at every layout pass, replotting
/// without end. False for tickers of other kinds, which are then left as they are.
bool ownTicker(QCPAxis* axis) {
  const QSharedPointer<QCPAxisTicker> ticker = axis->ticker();
  if (!ticker) return false;
  if (axis->property(kOwnTicker).value<quintptr>() == reinterpret_cast<quintptr>(ticker.data())) return true;
  QSharedPointer<QCPAxisTicker> copy;
  if (auto log = qSharedPointerDynamicCast<QCPAxisTickerLog>(ticker)) {
    auto logCopy = QSharedPointer<QCPAxisTickerLog>::create();
    logCopy->setLogBase(log->logBase());
    logCopy->setSubTickCount(log->subTickCount());
    copy = logCopy;
  } else if (typeid(*ticker) == typeid(QCPAxisTicker)) {
    copy = QSharedPointer<QCPAxisTicker>::create();
    copy->setTickOrigin(ticker->tickOrigin());
  } else {
    return false;
  }
  copy->setTickCount(ticker->tickCount());
  copy->setTickStepStrategy(ticker->tickStepStrategy());
  axis->setTicker(copy);
  axis->setProperty(kOwnTicker, reinterpret_cast<quintptr>(copy.data()));
  return true;
}

/// Ticks that fit: one label per ~1.6 label widths (horizontal) or ~2.4 line heights (vertical), 1 to 6 (a colour
/// bar a few lines high keeps its ends only).
bool fitTicks(QCPAxis* axis) {
  if (!axis->visible() || !axis->tickLabels() || !axis->ticker()) return false;
  if (qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker())) return false;  // token labels: their plot's job
  if (!ownTicker(axis)) return false;
  const QFontMetrics fm(axis->tickLabelFont());
  const bool horizontal = axis->orientation() == Qt::Horizontal;
  const int length = horizontal ? axis->axisRect()->width() : axis->axisRect()->height();
  if (length <= 0) return false;
  // The widest label estimated from the range's ends, not from the labels drawn: those change with the tick count,
  // and fitting to them would flip between two counts.
  double widest = fm.horizontalAdvance(QStringLiteral("0.00"));
  for (double end : {axis->range().lower, axis->range().upper})
    widest = std::max<double>(widest, fm.horizontalAdvance(QString::number(end, 'g', 3)));
  const bool upright = std::abs(std::sin(qDegreesToRadians(axis->tickLabelRotation()))) > 0.5;
  const double per = horizontal && !upright ? widest * 1.6 + fm.height() : fm.height() * 2.4;
  const int wanted = std::clamp(static_cast<int>(length / per), 1, 6);
  if (axis->ticker()->tickCount() == wanted) return false;
  axis->ticker()->setTickCount(wanted);
  return true;
}

/// Lines of `text` no wider than `width` in `fm`, broken at " · " first and at spaces when a part is still too wide;
/// a single word wider than the width is elided.
QString wrapped(const QString& text, const QFontMetrics& fm, int width) {
  QStringList lines;
  for (const QString& paragraph : text.split('\n')) {
    QString line;
    const auto add = [&](const QString& piece, const QString& separator) {
      const QString candidate = line.isEmpty() ? piece : line + separator + piece;
      if (line.isEmpty() || fm.horizontalAdvance(candidate) <= width) {
        line = candidate;
      } else {
        lines << line;
        line = piece;
      }
    };
    for (const QString& part : paragraph.split(QStringLiteral(" · "))) {
      if (fm.horizontalAdvance(part) <= width) {
        add(part, QStringLiteral(" · "));
        continue;
      }
      for (const QString& word : part.split(' ')) add(word, QStringLiteral(" "));
    }
    lines << line;
  }
  for (QString& line : lines) line = fm.elidedText(line, Qt::ElideRight, width);  // a word longer than the width
  return lines.join('\n');
}

/// The text and font a fitted text element shows.
struct FittedText {
  QString text;
  QFont font;
};

/// Fits the text a view set on `holder` (a title or an axis) into `width` pixels: the font shrinks to ¾ of the view's
/// size at most, then the text wraps, onto `maxLines` lines at most (the last one ends in "…"; in a paper column's
/// figure a long title wrapped word by word took the whole plot's height). `shown` / `shownFont` are what the element
/// shows now; a text or size the view set since the last fitting becomes the new base. Empty when there is nothing to
/// fit.
std::optional<FittedText> fitText(QObject* holder, const QString& shown, const QFont& shownFont, int width,
                                  int maxLines) {
  if (shown != holder->property(kFitText).toString()) holder->setProperty(kBaseText, shown);
  if (shownFont.pointSizeF() != holder->property(kFitPt).toDouble())
    holder->setProperty(kBasePt, shownFont.pointSizeF());
  const QString base = holder->property(kBaseText).toString();
  const double basePt = holder->property(kBasePt).toDouble();
  if (base.isEmpty() || basePt <= 0 || width <= 0) return std::nullopt;
  QFont font = shownFont;
  double pt = basePt;
  const auto widest = [&](const QString& text) {
    int w = 0;
    for (const QString& line : text.split('\n')) w = std::max(w, QFontMetrics(font).horizontalAdvance(line));
    return w;
  };
  font.setPointSizeF(pt);
  while (widest(base) > width && pt > basePt * 0.75) {
    pt = std::max(basePt * 0.75, pt - 0.5);
    font.setPointSizeF(pt);
  }
  QString text = widest(base) > width ? wrapped(base, QFontMetrics(font), width) : base;
  if (QStringList lines = text.split('\n'); lines.size() > maxLines) {
    lines = lines.mid(0, maxLines);
    QString& last = lines.back();
    last = QFontMetrics(font).elidedText(last + QStringLiteral(" …"), Qt::ElideRight, width);
    if (!last.endsWith(QChar(0x2026))) last += QChar(0x2026);
    text = lines.join('\n');
  }
  holder->setProperty(kFitText, text);
  holder->setProperty(kFitPt, pt);
  return FittedText{text, font};
}

bool fitTitle(QCPTextElement* title, int width) {
  const auto fitted = fitText(title, title->text(), title->font(), width, 3);
  if (!fitted) return false;
  const bool changed =
      fitted->text != title->text() || std::abs(fitted->font.pointSizeF() - title->font().pointSizeF()) > 1e-6;
  if (changed) {
    title->setFont(fitted->font);
    title->setText(fitted->text);
  }
  return changed;
}

/// An axis title longer than its axis shrinks (to ¾ at most) and then wraps, onto two lines at most.
bool fitAxisLabel(QCPAxis* axis) {
  if (!axis->visible()) return false;
  if (qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker())) return false;  // token axes: their plot's job
  const int length =
      (axis->orientation() == Qt::Horizontal ? axis->axisRect()->width() : axis->axisRect()->height()) - 4;
  const auto fitted = fitText(axis, axis->label(), axis->labelFont(), length, 2);
  if (!fitted) return false;
  const bool changed =
      fitted->text != axis->label() || std::abs(fitted->font.pointSizeF() - axis->labelFont().pointSizeF()) > 1e-6;
  if (changed) {
    axis->setLabelFont(fitted->font);
    axis->setLabel(fitted->text);
  }
  return changed;
}

/// Data points of the plot's graphs and curves inside `box` (pixels).
int pointsInside(QCustomPlot* plot, const QRect& box) {
  int inside = 0;
  for (int i = 0; i < plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot->plottable(i);
    if (!p->visible()) continue;
    const auto count = [&](double key, double value) {
      if (std::isfinite(key) && std::isfinite(value) && box.contains(p->coordsToPixels(key, value).toPoint())) ++inside;
    };
    if (auto* g = qobject_cast<QCPGraph*>(p))
      for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) count(it->key, it->value);
    else if (auto* c = qobject_cast<QCPCurve*>(p))
      for (auto it = c->data()->constBegin(); it != c->data()->constEnd(); ++it) count(it->key, it->value);
  }
  return inside;
}

/// Moves each legend inside an axis rect to the corner covering the fewest data points (its own corner on a tie).
bool placeLegends(QCustomPlot* plot) {
  bool changed = false;
  for (QCPAxisRect* rect : plot->axisRects()) {
    QCPLayoutInset* inset = rect->insetLayout();
    for (int i = 0; i < inset->elementCount(); ++i) {
      auto* legend = qobject_cast<QCPLegend*>(inset->elementAt(i));
      if (!legend || !legend->visible() || inset->insetPlacement(i) != QCPLayoutInset::ipBorderAligned) continue;
      const QSize size = legend->outerRect().size();
      if (size.isEmpty()) continue;
      const QRect area = rect->rect();
      const Qt::Alignment current = inset->insetAlignment(i);
      const auto box = [&](Qt::Alignment a) {
        const int x = a & Qt::AlignLeft      ? area.left()
                      : a & Qt::AlignHCenter ? area.center().x() - size.width() / 2
                                             : area.right() - size.width();
        const int y = a & Qt::AlignTop       ? area.top()
                      : a & Qt::AlignVCenter ? area.center().y() - size.height() / 2
                                             : area.bottom() - size.height();
        return QRect(QPoint(x, y), size);
      };
      Qt::Alignment best = current;
      int fewest = pointsInside(plot, box(current));
      for (Qt::Alignment a : {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                              Qt::AlignBottom | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft}) {
        if (fewest == 0) break;
        const int n = pointsInside(plot, box(a));
        if (n < fewest) fewest = n, best = a;
      }
      if (fewest > 0) {
        // Every corner covers data: the legend leaves the axes for a row of its own under the plot, for good.
        inset->take(legend);
        inset->simplify();
        QCPLayoutGrid* layout = plot->plotLayout();
        layout->insertRow(layout->rowCount());
        layout->addElement(layout->rowCount() - 1, 0, legend);
        layout->setRowStretchFactor(layout->rowCount() - 1, 0.001);
        return true;
      }
      if (best != current) {
        inset->setInsetAlignment(i, best);
        changed = true;
      }
    }
  }
  return changed;
}

/// A legend under the plot (moved there, or put there by its view) gets as many columns of entries as the widest entry
/// allows at the plot's width.
bool wrapLegendBelow(QCustomPlot* plot) {
  bool changed = false;
  QCPLayoutGrid* grid = plot->plotLayout();
  for (int r = 0; r < grid->rowCount(); ++r) {
    // A legend in the first column of the plot's own grid lies under the axes (a legend beside them keeps its column).
    auto* legend = qobject_cast<QCPLegend*>(grid->element(r, 0));
    if (!legend || !legend->visible()) continue;
    const QFontMetrics fm(legend->font());
    int widest = 1;
    for (int k = 0; k < legend->itemCount(); ++k)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(k)))
        widest = std::max(widest, fm.horizontalAdvance(item->plottable()->name()));
    widest += legend->iconSize().width() + legend->iconTextPadding() + 16;
    const int columns = std::clamp(plot->viewport().width() / widest, 1, std::max(1, legend->itemCount()));
    if (legend->wrap() == columns && legend->fillOrder() == QCPLegend::foColumnsFirst) continue;
    legend->setWrap(columns);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // places the entries again, row by row
    changed = true;
  }
  return changed;
}

/// One fitting pass over the plot's last layout; true when something changed (another layout pass is due).
bool fitOnce(QCustomPlot* plot) {
  bool changed = false;
  for (QCPAxisRect* rect : plot->axisRects())
    for (QCPAxis* axis : rect->axes()) {
      changed |= fitTicks(axis);
      changed |= fitAxisLabel(axis);
    }
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
    if (auto* title = qobject_cast<QCPTextElement*>(e)) {
      // A title sharing its row with a legend or colour bar has its cell's width, not the plot's.
      const int cell = e->outerRect().width() > 0 ? e->outerRect().width() : plot->viewport().width();
      changed |= fitTitle(title, std::min(cell, plot->viewport().width()) - 8);
    }
  changed |= placeLegends(plot);
  changed |= wrapLegendBelow(plot);
  return changed;
}

class PolishWatcher : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Polish)
      if (auto* plot = qobject_cast<QCustomPlot*>(watched)) fitPlotToSize(plot);
    return false;
  }
};

}  // namespace

void fitPlotToSize(QCustomPlot* plot) {
  if (plot->property(kInstalled).toBool()) return;
  plot->setProperty(kInstalled, true);
  // At most kMaxRounds replots of its own in a row: a fitting that does not settle (it once flipped a shared ticker's
  // count forever) costs a few passes, not a core.
  constexpr int kMaxRounds = 4;
  QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
    const int rounds = plot->property(kRounds).toInt();
    const bool changed = fitOnce(plot);
    plot->setProperty(kRounds, changed && rounds < kMaxRounds ? rounds + 1 : 0);
    if (changed && rounds < kMaxRounds) plot->replot(QCustomPlot::rpQueuedReplot);
  });
}

void installPlotFitting() {
  static bool installed = false;
  if (installed || !qApp) return;
  installed = true;
  qApp->installEventFilter(new PolishWatcher(qApp));
}

void settlePlot(QCustomPlot* plot) {
  fitPlotToSize(plot);
  for (int pass = 0; pass < 3; ++pass) {
    plot->replot(QCustomPlot::rpImmediateRefresh);
    if (!fitOnce(plot)) break;
  }
}

}  // namespace attnlab::ui
