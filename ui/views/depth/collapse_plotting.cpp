#include "ui/views/depth/collapse_plotting.h"

#include <QFontMetrics>
#include <QPointer>
#include <algorithm>
#include <cmath>

namespace attnlab::ui {
namespace {

QVector<double> floored(const std::vector<double>& v) {
  QVector<double> out;
  out.reserve(static_cast<int>(v.size()));
  for (double x : v) out << (std::isfinite(x) ? std::max(x, kLogFloor) : kLogFloor);
  return out;
}

/// A log ticker that thins its labels to the axis's length: the rank-collapse curves span 16 decades, and on the
/// ~70 px axis of a 16:9 slide every second decade was labelled, nine labels over one another.
class FittingLogTicker : public QCPAxisTickerLog {
 public:
  explicit FittingLogTicker(QCPAxis* axis) : axis_(axis) {}
  void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                QVector<double>* subTicks, QVector<QString>* tickLabels) override {
    if (axis_ && axis_->axisRect()) {
      const bool vertical = axis_->orientation() == Qt::Vertical;
      const int length = vertical ? axis_->axisRect()->height() : axis_->axisRect()->width();
      // A label "10⁻¹²" is one line tall and about four digits wide; keep a label's size free between two.
      const QFontMetrics fm(axis_->tickLabelFont());
      const int room = vertical ? 2 * fm.height() : 2 * fm.horizontalAdvance(QStringLiteral("10-12"));
      setTickCount(std::clamp(length / std::max(1, room), 2, 8));
    }
    QCPAxisTickerLog::generate(range, locale, formatChar, precision, ticks, subTicks, tickLabels);
  }

 private:
  QPointer<QCPAxis> axis_;
};

}  // namespace

QColor configColor(StackConfig c) {
  switch (c) {
    case StackConfig::San:
      return QColor(0xD5, 0x5E, 0x00);  // vermillion
    case StackConfig::SanSkip:
      return QColor(0x00, 0x72, 0xB2);  // blue
    case StackConfig::SanMlp:
      return QColor(0xE6, 0x9F, 0x00);  // orange
    case StackConfig::SanSkipMlp:
      return QColor(0x00, 0x9E, 0x73);  // bluish green
    case StackConfig::PostLn:
      return QColor(0xCC, 0x79, 0xA7);  // reddish purple
    case StackConfig::PreLn:
      return QColor(0x56, 0xB4, 0xE9);  // sky blue
    case StackConfig::SanLn:
      return QColor(0x44, 0x44, 0x44);  // dark grey
  }
  return Qt::black;
}

void makeLogAxis(QCPAxis* axis) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  QSharedPointer<QCPAxisTickerLog> ticker(new FittingLogTicker(axis));
  ticker->setLogBase(10);
  ticker->setSubTickCount(0);
  axis->setTicker(ticker);
  axis->setNumberFormat("eb");
  axis->setNumberPrecision(0);
}

QCPGraph* addBandCurve(QCustomPlot* plot, const std::vector<double>& x, const std::vector<double>& median,
                       const std::vector<double>& min, const std::vector<double>& max, const QColor& color,
                       const QString& name) {
  const QVector<double> xs(x.begin(), x.end());
  QColor fill = color;
  fill.setAlpha(45);
  QCPGraph* lo = plot->addGraph();
  lo->setData(xs, floored(min), true);
  lo->setPen(Qt::NoPen);
  lo->removeFromLegend();
  QCPGraph* hi = plot->addGraph();
  hi->setData(xs, floored(max), true);
  hi->setPen(Qt::NoPen);
  hi->setBrush(fill);
  hi->setChannelFillGraph(lo);
  hi->removeFromLegend();
  QCPGraph* mid = plot->addGraph();
  mid->setData(xs, floored(median), true);
  mid->setPen(QPen(color, 2.2));
  mid->setName(name);
  return mid;
}

void scalePlotFonts(QCustomPlot* plot, double scale) {
  QFont f = plot->font();
  f.setPointSizeF(9 * scale);
  for (QCPAxis* a : plot->axisRect()->axes()) {
    a->setTickLabelFont(f);
    a->setLabelFont(f);
  }
  plot->legend->setFont(f);
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
      t->setFont(QFont(f.family(), static_cast<int>(std::lround(10.5 * scale)), QFont::Bold));
  plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace attnlab::ui
