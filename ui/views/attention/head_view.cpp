#include "ui/views/attention/head_view.h"

#include "ui/views/common/encdec_result.h"
#include "ui/views/common/head_names.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/session/token_pins.h"
#include "ui/plots/view_style.h"
#include "ui/views/attention/cross_attention_view.h"
#include "ui/views/attention/head_view_legend.h"

namespace attnlab::ui {

HeadView::HeadView(QWidget* parent) : TraceView(parent) {
  title_ = new QLabel;
  title_->setWordWrap(true);
  title_->setAlignment(Qt::AlignCenter);
  swatches_ = new QWidget;
  new QHBoxLayout(swatches_);
  swatches_->layout()->setContentsMargins(0, 0, 0, 0);
  arrangement_ = new QComboBox;
  arrangement_->addItems({tr("overlay"), tr("a column per head")});
  arrangement_->setToolTip(
      tr("Overlay: every head's lines in one pair of columns. A column per head: small multiples, where "
         "overlaid lines would blend."));
  arrangement_->setAccessibleName(tr("head arrangement"));
  threshold_ = new QSlider(Qt::Horizontal);
  threshold_->setRange(0, 50);
  threshold_->setValue(2);
  threshold_->setMaximumWidth(160);
  threshold_->setToolTip(tr("Hide lines whose weight is below this value: long inputs stay readable and fast."));
  threshold_->setAccessibleName(tr("faint-line threshold"));
  thresholdLabel_ = new QLabel;
  legend_ = new HeadViewLegend;
  canvas_ = new HeadViewCanvas;
  canvas_->setToolTip(
      tr("Queries on the left, keys on the right; a line's opacity is its attention weight. "
         "Hover a token to see only its lines, click to pin it."));
  scroll_ = new QScrollArea;
  scroll_->setWidget(canvas_);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);

  // The controls are not the figure: exports show the title, the plot and its key (legend_).
  auto* controls = new QWidget;
  controls->setProperty(kScreenOnlyProperty, true);
  auto* bar = new QHBoxLayout(controls);
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(swatches_);
  bar->addStretch(1);
  bar->addWidget(arrangement_);
  bar->addWidget(thresholdLabel_);
  bar->addWidget(threshold_);
  controls_ = controls;
  // The cross stack: target tokens left, source tokens right, drawn by the Cross-attention view's canvas (one head).
  alignment_ = new AlignmentCanvas;
  alignment_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(title_);
  layout->addWidget(controls);
  layout->addWidget(legend_);
  layout->addWidget(scroll_, 1);
  layout->addWidget(alignment_, 1);
  connect(threshold_, &QSlider::valueChanged, this, [this](int v) { setThreshold(v / 100.0); });
  connect(canvas_, &HeadViewCanvas::tokenHovered, this, [this](int t) { hoverToken(t); });
  connect(canvas_, &HeadViewCanvas::tokenClicked, this, [this](int t, Qt::KeyboardModifiers m) {
    requestPinClick(result_, t, (m & (Qt::ControlModifier | Qt::ShiftModifier)) != 0);
  });
  connect(arrangement_, &QComboBox::currentIndexChanged, this, [this](int i) { setColumns(i == 1); });
  setThreshold(0.02);
  setFontScale(1.0);
  connect(&ViewStyle::instance(), &ViewStyle::changed, canvas_, qOverload<>(&QWidget::update));
  connect(&ViewStyle::instance(), &ViewStyle::changed, legend_, qOverload<>(&QWidget::update));
}

void HeadView::setThreshold(double t) {
  if (threshold_->value() != qRound(t * 100)) threshold_->setValue(qRound(t * 100));
  thresholdLabel_->setText(tr("hide lines below %1").arg(t, 0, 'f', 2));
  canvas_->setThreshold(t);
  legend_->setThreshold(t);
}

void HeadView::setColumns(bool perHead) {
  if (arrangement_->currentIndex() != (perHead ? 1 : 0)) arrangement_->setCurrentIndex(perHead ? 1 : 0);
  canvas_->setPerHeadColumns(perHead);
}

void HeadView::setHeadVisible(int head, bool visible) {
  canvas_->setHeadVisible(head, visible);
  const auto buttons = swatches_->findChildren<QPushButton*>();
  if (head >= 0 && head < buttons.size()) buttons[head]->setChecked(visible);
  updateTitle();
}

QString HeadView::title() const { return title_->text(); }

void HeadView::updateTitle() {
  legend_->setHeads(canvas_->visibleHeads());
  if (!result_ || !result_->ok()) return;
  // Names the heads drawn, in the swatches' numbering: "all 4 heads", "heads 0, 2 of 4", "head 1 of 4".
  const int total = result_->trace().headCount();
  const std::vector<int> shown = legend_->shownHeads();
  QString heads;
  if (static_cast<int>(shown.size()) == total) {
    heads = total == 1 ? tr("the one head") : tr("all %1 heads").arg(total);
  } else if (shown.empty()) {
    heads = tr("no head shown (of %1)").arg(total);
  } else {
    QStringList names;
    for (int h : shown) names << QString::number(h);
    heads = (shown.size() == 1 ? tr("head %1 of %2") : tr("heads %1 of %2")).arg(names.join(", ")).arg(total);
  }
  // An encoder–decoder's stack leads the title ("Decoder layer 0"), which then needs no "causal": on a projector
  // a longer line wrapped and the page grew past the screen.
  const QString stack = stackTag(*result_);
  if (!stack.isEmpty()) {
    title_->setText(tr("%1 layer %2 · %3 · queries left, keys right")
                        .arg(stack.contains(QLatin1String("decoder")) ? tr("Decoder") : tr("Encoder"))
                        .arg(result_->layer())
                        .arg(heads));
    return;
  }
  title_->setText(tr("Layer %1 · %2%3 · queries left, keys right")
                      .arg(result_->layer())
                      .arg(heads, result_->trace().causal ? tr(" · causal") : QString()));
}

void HeadView::showResult(const ResultPtr& result) {
  result_ = result;
  if (!result || !result->ok()) return;
  const bool cross = showsCross(*result);
  if (alignment_->isHidden() == cross) {  // into or out of the cross stack (a figure's hidden controls stay hidden)
    for (QWidget* w : {static_cast<QWidget*>(scroll_), controls_, static_cast<QWidget*>(legend_)})
      w->setVisible(!cross);
    alignment_->setVisible(cross);
  }
  if (cross) {  // one head's lines from each target token to the source tokens it reads
    const int l = result->layer(), h = result->head();
    alignment_->setData(crossHead(*result, l, h)->attention, crossTargets(*result), crossSources(*result));
    title_->setText(tr("Cross · decoder layer %1 · head %2 · target left, source right").arg(l).arg(h));
    return;
  }
  const bool rebuild = result->trace().headCount() != swatches_->findChildren<QPushButton*>().size();
  canvas_->setData(result, result->layer());
  const std::vector<int>& pins = result->params.selection.pinned;
  // In the window the pins are the truth: a pin of the canvas's own that was undone or cleared goes.
  if (tokenSelection() && canvas_->pinned() && std::find(pins.begin(), pins.end(), canvas_->focusToken()) == pins.end())
    canvas_->setFocusToken(-1, -1, false);
  canvas_->setSharedTokens(pins, hoveredToken());
  if (rebuild) rebuildSwatches();
  updateTitle();
}

void HeadView::rebuildSwatches() {
  for (QPushButton* b : swatches_->findChildren<QPushButton*>()) delete b;
  const int heads = result_ ? result_->trace().headCount() : 0;
  for (int h = 0; h < heads; ++h) {
    const QString kv = kvSuffix(result_->trace(), h);
    auto* b = new QPushButton(tr("H%1").arg(h) + kv);
    b->setCheckable(true);
    b->setChecked(canvas_->headVisible(h));
    b->setFont(thresholdLabel_->font());
    const QColor c = HeadViewCanvas::headColor(h);
    b->setStyleSheet(QString("QPushButton { border: 2px solid %1; border-radius: 3px; padding: 1px 6px; }"
                             "QPushButton:checked { background: %1; color: white; }")
                         .arg(c.name()));
    b->setToolTip(tr("Head %1%2: click to hide or show its lines").arg(h).arg(kv));
    connect(b, &QPushButton::toggled, this, [this, h](bool on) {
      canvas_->setHeadVisible(h, on);
      updateTitle();
    });
    swatches_->layout()->addWidget(b);
  }
}

void HeadView::setFontScale(double scale) {
  fontScale_ = scale;
  alignment_->setFontScale(scale);
  canvas_->setFontScale(scale);
  legend_->setFontScale(scale);
  QFont f = font();
  f.setPointSizeF(9 * scale);
  thresholdLabel_->setFont(f);
  arrangement_->setFont(f);
  for (QPushButton* b : swatches_->findChildren<QPushButton*>()) b->setFont(f);
  f.setPointSizeF(10 * scale);
  f.setBold(true);
  title_->setFont(f);
}

void HeadView::onHoverChanged(int token) {
  if (result_ && result_->ok()) canvas_->setSharedTokens(result_->params.selection.pinned, token);
}

void HeadView::onSelectionCleared() { canvas_->setFocusToken(-1, -1, false); }

void HeadView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    canvas_->setFocusToken(-1, -1, false);
    return;
  }
  TraceView::keyPressEvent(event);
}

ViewNumbers HeadView::numbers(const ComputeResult& result) const {
  if (!result.ok()) return TraceView::numbers(result);
  const int l = result.layer();
  if (crossLayersOf(result)) {  // the drawn head's target × source map
    const int h = result.head();
    const QString title = tr("Cross-attention · decoder layer %1 · head %2").arg(l).arg(h);
    ViewNumbers n = numbersFrame(result, title);
    n.matrices.push_back(labelled("cross_attention_L" + std::to_string(l) + "_H" + std::to_string(h), title,
                                  crossHead(result, l, h)->attention.cast<double>(), crossTargets(result),
                                  crossSources(result)));
    return n;
  }
  ViewNumbers n = numbersFrame(result, tr("Attention of every head of layer %1").arg(l));
  for (int h = 0; h < result.trace().headCount(); ++h) addAttentionNumbers(n, result, l, h);
  return n;
}

}  // namespace attnlab::ui
