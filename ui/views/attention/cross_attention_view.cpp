#include "ui/views/attention/cross_attention_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/plots/matrix_plot.h"
#include "ui/plots/view_style.h"
#include "ui/views/common/encdec_result.h"

namespace attnlab::ui {
AlignmentCanvas::AlignmentCanvas(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void AlignmentCanvas::setData(const Mat& map, const QStringList& targets, const QStringList& sources) {
  map_ = map;
  targets_ = targets;
  sources_ = sources;
  update();
}

void AlignmentCanvas::setFontScale(double scale) {
  fontScale_ = scale;
  update();
}

void AlignmentCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QColor ink = palette().color(QPalette::WindowText);
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * fontScale_);
  const int rows = static_cast<int>(std::max(targets_.size(), sources_.size()));
  linesDrawn_ = 0;
  if (rows == 0 || map_.size() == 0) return;
  // The two column headings in the window's font; rows share the rest of the height, their font shrinking when the
  // texts are long (never below 6 pt).
  p.setFont(f);
  const double top = QFontMetrics(f).height() + 6;
  const double rowH = std::max(1.0, (height() - top) / rows);
  QFont tokens = f;
  tokens.setPointSizeF(std::max(6.0, std::min(f.pointSizeF() * 1.3, rowH * 0.55)));
  const QFontMetrics fm(tokens);
  int labelW = 0;
  for (const QString& s : targets_ + sources_) labelW = std::max(labelW, fm.horizontalAdvance(s));
  labelW = std::min(labelW + 8, width() / 4);
  const double xl = labelW + 4, xr = width() - labelW - 4;
  p.setPen(ink);
  p.drawText(QRectF(0, 0, xl, top), Qt::AlignRight | Qt::AlignVCenter, tr("target"));
  p.drawText(QRectF(xr, 0, width() - xr, top), Qt::AlignLeft | Qt::AlignVCenter, tr("source"));
  p.setFont(tokens);
  const auto yOf = [&](int i, int n) { return top + (i + 0.5) * (height() - top) / std::max(1, n); };
  const int nt = static_cast<int>(targets_.size()), ns = static_cast<int>(sources_.size());
  for (int i = 0; i < nt; ++i)
    p.drawText(QRectF(0, yOf(i, nt) - rowH / 2, labelW, rowH), Qt::AlignRight | Qt::AlignVCenter,
               fm.elidedText(targets_[i], Qt::ElideRight, labelW));
  for (int j = 0; j < ns; ++j)
    p.drawText(QRectF(width() - labelW, yOf(j, ns) - rowH / 2, labelW, rowH), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(sources_[j], Qt::ElideRight, labelW));
  const QColor line = ViewStyle::instance().dark() ? QColor(120, 180, 255) : QColor(31, 90, 180);
  for (int i = 0; i < std::min<int>(nt, static_cast<int>(map_.rows())); ++i)
    for (int j = 0; j < std::min<int>(ns, static_cast<int>(map_.cols())); ++j) {
      const double w = map_(i, j);
      if (w < kMinWeight) continue;
      QColor c = line;
      c.setAlphaF(std::min(1.0, 0.15 + 0.85 * w));
      p.setPen(QPen(c, 0.5 + 3.5 * w * fontScale_));
      p.drawLine(QPointF(xl, yOf(i, nt)), QPointF(xr, yOf(j, ns)));
      ++linesDrawn_;
    }
}

CrossAttentionView::CrossAttentionView(QWidget* parent) : TraceView(parent) {
  drawing_ = new QComboBox;
  drawing_->addItems({tr("Heatmap"), tr("Alignment lines")});
  drawing_->setToolTip(tr("The map as a heatmap (target rows × source columns) or as lines between the two texts"));
  average_ = new QComboBox;
  average_->addItems({tr("Selected head"), tr("Mean over the layer's heads"), tr("Mean over all heads and layers")});
  average_->setToolTip(tr("One head's cross-attention, or the mean of several"));
  // A figure states its choice in its title: the two menus are for the screen.
  drawing_->setProperty(kScreenOnlyProperty, true);
  average_->setProperty(kScreenOnlyProperty, true);
  title_ = new QLabel;
  title_->setWordWrap(true);
  note_ = new QLabel;
  note_->setWordWrap(true);
  note_->setObjectName("crossNote");
  plot_ = new MatrixPlot;
  plot_->setRangeMode(MatrixPlot::Range::UnitInterval);
  plot_->setAxisTitles(tr("target token (decoder query)"), tr("source token (encoder key)"));
  canvas_ = new AlignmentCanvas;
  stack_ = new QStackedWidget;
  stack_->addWidget(plot_);
  stack_->addWidget(canvas_);
  auto* controls = new QHBoxLayout;
  controls->addWidget(drawing_);
  controls->addWidget(average_);
  controls->addWidget(title_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(note_);
  layout->addWidget(stack_, 1);
  // The drawing is a parameter (selection.cross: sessions keep it, lessons set it): a choice here is an edit.
  connect(drawing_, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this](int i) {
    redraw();
    if (!result_) return;
    Params p = paramsInForce(*result_);
    p.selection.cross = i == 1 ? "alignment" : "heatmap";
    if (p.selection.cross != result_->params.selection.cross) emit paramsRequested(p);
  });
  connect(average_, QOverload<int>::of(&QComboBox::currentIndexChanged), this, [this] { redraw(); });
}

Mat CrossAttentionView::shownMap(const ComputeResult& result, QString* title) const {
  const EncDecRun* run = encDecRunOf(result);
  if (!run || run->trace->cross.empty()) return {};
  const auto& cross = run->trace->cross;
  const int layers = static_cast<int>(cross.size());
  const int l = std::clamp(result.params.selection.layer, 0, layers - 1);
  const int heads = static_cast<int>(cross[l].heads.size());
  const int h = std::clamp(result.params.selection.head, 0, heads - 1);
  const auto mode = static_cast<Average>(average_->currentIndex());
  Mat sum = Mat::Zero(cross[l].heads[h].attention.rows(), cross[l].heads[h].attention.cols());
  int count = 0;
  for (int li = 0; li < layers; ++li) {
    if (mode != Average::All && li != l) continue;
    for (int hi = 0; hi < static_cast<int>(cross[li].heads.size()); ++hi) {
      if (mode == Average::Head && hi != h) continue;
      sum += cross[li].heads[hi].attention;
      ++count;
    }
  }
  if (title)
    *title = mode == Average::Head ? tr("Cross-attention · decoder layer %1 · head %2").arg(l).arg(h)
             : mode == Average::Layer
                 ? tr("Cross-attention · decoder layer %1 · mean of %2 heads").arg(l).arg(count)
                 : tr("Cross-attention · mean of all %1 heads of %2 layers").arg(count).arg(layers);
  return sum / static_cast<float>(std::max(1, count));
}

void CrossAttentionView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  result_ = result;
  const QSignalBlocker block(drawing_);
  drawing_->setCurrentIndex(result->params.selection.cross == "alignment" ? 1 : 0);
  redraw();
}

void CrossAttentionView::showFailure(const ResultPtr& result) {
  // The built-in rung 7 without a target (or another text it refuses): there is no map, and the last one shown is of
  // other texts. Say what to type instead of keeping it.
  if (!result || !result->params.modelDir.empty() || result->params.model.mode != Mode::EncDec) return;
  note_->setText(tr("Rung 7 (encoder–decoder): %1").arg(result->error));
  note_->show();
  stack_->hide();
  title_->clear();
}

void CrossAttentionView::redraw() {
  if (!result_) return;
  const EncDecRun* run = encDecRunOf(*result_);
  drawing_->setEnabled(run);
  average_->setEnabled(run);
  if (!run) {
    note_->setText(
        tr("Cross-attention belongs to encoder–decoders: choose rung 7 of the built-in model, or open a Marian "
           "(opus-mt), BART or T5 folder (File ▸ Open model folder) to see how each target token reads the source."));
    note_->show();
    stack_->hide();
    title_->clear();
    return;
  }
  note_->hide();
  stack_->show();
  QString title;
  const Mat map = shownMap(*result_, &title);
  const QStringList targets = crossTargets(*result_), sources = crossSources(*result_);
  title_->setText(title + tr(" · target rows × source columns"));
  stack_->setCurrentIndex(drawing_->currentIndex());
  if (drawing_->currentIndex() == 0) {
    plot_->setTitle(title);
    plot_->setMatrix(map, targets, sources);
  } else {
    canvas_->setData(map, targets, sources);
  }
}

void CrossAttentionView::setFontScale(double scale) {
  plot_->setFontScale(scale);
  canvas_->setFontScale(scale);
}

ViewNumbers CrossAttentionView::numbers(const ComputeResult& result) const {
  QString title;
  const Mat map = shownMap(result, &title);
  const EncDecRun* run = encDecRunOf(result);
  if (!run) return numbersFrame(result, displayName());
  ViewNumbers n = numbersFrame(result, title);
  n.matrices.push_back(
      labelled("cross_attention", title, map.cast<double>(), crossTargets(result), crossSources(result)));
  return n;
}

}  // namespace attnlab::ui
