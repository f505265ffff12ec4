#include "ui/views/attention/heatmap_view.h"

#include "core/model/head_maps.h"
#include "core/model/head_pyramid.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>

#include "core/session/token_pins.h"
#include "ui/plots/view_style.h"
#include "ui/plots/window_shade.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/common/head_names.h"

namespace attnlab::ui {

HeatmapView::HeatmapView(QWidget* parent) : TraceView(parent) {
  plot_ = new MatrixPlot(this);
  plot_->setMinimumHeight(200);  // the map keeps its room above the pinned sums, which scroll
  plot_->setRangeMode(MatrixPlot::Range::UnitInterval);
  plot_->setAxisTitles(tr("query (attends from)"), tr("key (attends to)"));
  plot_->setTokenAxes(true, true);
  pinTable_ = new QLabel;
  pinTable_->setTextFormat(Qt::RichText);
  pinTable_->setAlignment(Qt::AlignCenter);
  // The table scrolls inside the view: as a plain label its rows (one per token) grew the window past the screen.
  pinScroll_ = new QScrollArea(this);
  pinScroll_->setWidget(pinTable_);
  pinScroll_->setWidgetResizable(true);
  pinScroll_->setFrameShape(QFrame::NoFrame);
  pinScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the table's cells wrap to the width instead
  pinTable_->setWordWrap(true);
  pinScroll_->hide();
  hover_ = new QLabel(hoverHint(), this);
  hover_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // Wrapped, as the pooling caption below: one line of large text set the view's minimum width, and beside the model
  // view on a projector the grid was left 25-pixel thumbnails although the lesson named it.
  hover_->setWordWrap(true);
  hover_->setProperty(kScreenOnlyProperty, true);  // a hint for the mouse, not part of a figure
  long_ = new ZoomableHeatmap(this);
  long_->setAxisTitles(tr("query (attends from)"), tr("key (attends to)"));
  auto* pooling = new QComboBox(this);
  pooling->addItems({tr("Max"), tr("Mean")});
  pooling->setToolTip(tr("How a pixel covering many cells summarises them: the largest weight or their mean"));
  connect(pooling, &QComboBox::currentIndexChanged, this,
          [this](int i) { long_->setPooling(i == 1 ? Pooling::Mean : Pooling::Max); });
  auto* poolingRow = new QWidget(this);
  poolingRow->setProperty(kScreenOnlyProperty, true);  // a control, not part of a figure
  auto* poolingLayout = new QHBoxLayout(poolingRow);
  poolingLayout->setContentsMargins(0, 0, 0, 0);
  auto* poolingCaption = new QLabel(tr("Pooling of cells smaller than a pixel:"), poolingRow);
  poolingCaption->setWordWrap(true);
  poolingLayout->addWidget(poolingCaption);
  poolingLayout->addWidget(pooling);
  poolingLayout->addStretch(1);
  longBox_ = new QWidget(this);
  auto* longLayout = new QVBoxLayout(longBox_);
  longLayout->setContentsMargins(0, 0, 0, 0);
  longLayout->addWidget(poolingRow);
  longLayout->addWidget(long_, 1);
  stack_ = new QStackedWidget(this);
  stack_->addWidget(plot_);
  stack_->addWidget(longBox_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(stack_, 1);
  layout->addWidget(pinScroll_);
  layout->addWidget(hover_);
  // A token label pins (Ctrl/Shift: adds to the pins); so does a Ctrl/Shift-click on a cell, its query.
  const auto extend = [](Qt::KeyboardModifiers m) { return (m & (Qt::ControlModifier | Qt::ShiftModifier)) != 0; };
  connect(plot_, &MatrixPlot::tokenLabelClicked, this, [this, extend](int t, Qt::KeyboardModifiers m) {
    if (!cross_) requestPinClick(result_, t, extend(m));  // a cross map's columns are no pins' tokens
  });
  connect(plot_, &MatrixPlot::cellClicked, this, [this, extend](int r, int, Qt::KeyboardModifiers m) {
    if (extend(m) && !cross_) requestPinClick(result_, r, true);
  });
  // The hovered token: the query of the cell under the mouse, or the token of the label under it.
  connect(plot_, &MatrixPlot::tokenLabelHovered, this, [this] {
    if (!cross_) hoverToken(plot_->hoveredRow() >= 0 ? plot_->hoveredRow() : plot_->hoveredLabel());
  });
  connect(plot_, &MatrixPlot::cellHovered, this, [this](int r, int c, double v) {
    // The query's token lights up in every view (a cross map's two texts are not the views' one).
    if (!cross_) hoverToken(r >= 0 ? r : plot_->hoveredLabel());
    showCellHover(r, c, v);
  });
  connect(long_, &ZoomableHeatmap::cellHovered, this, [this](int r, int c, double v) {
    hoverToken(r);
    // Under the row scale the pyramid holds the row divided by its max: the read-out is the weight itself.
    if (r >= 0 && shownRowMax_ && static_cast<std::size_t>(r) < shownRowMax_->size())
      v *= (*shownRowMax_)[static_cast<std::size_t>(r)];
    showCellHover(r, c, v);
  });
  // Another colour scale: the titles name it; the long map's pyramid is rebuilt when rows are (no longer) divided
  // by their maximum, the other scales only recolour it.
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, [this] {
    if (!result_ || !result_->ok()) return;
    const bool rowScaled = ViewStyle::instance().attentionScale() == AttentionScale::Row;
    if (longShown_ && rowScaled != (shownRowMax_ != nullptr)) {
      showResult(result_);
      return;
    }
    plot_->setTitle(title());
    long_->setTitle(title());
  });
  connect(long_, &ZoomableHeatmap::cellClicked, this, [this, extend](int r, int, Qt::KeyboardModifiers m) {
    if (extend(m)) requestPinClick(result_, r, true);
  });
}

void HeatmapView::showCellHover(int r, int c, double v) {
  if (r < 0 || !result_ || !result_->ok()) {
    hover_->setText(hoverHint());  // a read-out never outlives the cell or the sentence it names
    return;
  }
  if (cross_) {  // rows are the target's tokens, columns the source's
    hover_->setText(tr("target “%1” [%2] → source “%3” [%4]: weight %5")
                        .arg(crossTargets(*result_).value(r))
                        .arg(r)
                        .arg(crossSources(*result_).value(c))
                        .arg(c)
                        .arg(v, 0, 'f', 4));
    return;
  }
  const QStringList labels = result_->tokenLabels();
  if (hiddenByWindow(window(), r, c)) {  // not a weight of 0 the query gave: a key it cannot see
    hover_->setText(tr("query “%1” [%2] → key “%3” [%4]: not visible (outside the layer's window of %5 keys)")
                        .arg(labels.value(r))
                        .arg(r)
                        .arg(labels.value(c))
                        .arg(c)
                        .arg(window()));
    return;
  }
  hover_->setText(tr("query “%1” [%2] → key “%3” [%4]: weight %5")
                      .arg(labels.value(r))
                      .arg(r)
                      .arg(labels.value(c))
                      .arg(c)
                      .arg(v, 0, 'f', 4));
}

std::shared_ptr<const MapPyramid> HeatmapView::pyramidOf(const ResultPtr& result, int layer, int head) {
  // Rows of the stored map, or (long inputs, which keep none) recomputed from the head's Q and K a block at a time
  // on every core (head_pyramid.h); the producer shares ownership of the result, whose trace holds them.
  if (!sparePyramid_ || sparePyramid_.use_count() > 1) sparePyramid_ = std::make_shared<MapPyramid>();
  // The row scale: each row divided by its maximum before pooling, so a row's peak stays the top colour zoomed out.
  const bool rowScaled = ViewStyle::instance().attentionScale() == AttentionScale::Row;
  shownRowMax_ = rowScaled ? std::make_shared<std::vector<float>>() : nullptr;
  buildHeadPyramid(*sparePyramid_,
                   result->trace().layers[static_cast<std::size_t>(layer)].heads[static_cast<std::size_t>(head)],
                   result, {}, shownRowMax_);
  std::swap(shownPyramid_, sparePyramid_);  // the one shown until now is rebuilt next time, once long_ lets it go
  return shownPyramid_;
}

QString HeatmapView::title() const {
  if (!result_ || !result_->ok()) return {};
  if (cross_)
    return tr("Cross-attention · decoder layer %1 · head %2 · target rows × source columns%3")
        .arg(result_->layer())
        .arg(result_->head())
        .arg(attentionScaleTitleNote(ViewStyle::instance().attentionScale()));
  return tr("Attention%7 · layer %1 · head %2%3%4%5%6")
      .arg(result_->layer())
      .arg(result_->head())
      .arg(kvSuffix(result_->trace(), result_->head()))
      .arg(result_->trace().causal ? tr(" · causal") : "")
      .arg(windowTitleNote(window()))
      .arg(attentionScaleTitleNote(ViewStyle::instance().attentionScale()))
      .arg(stackTag(*result_));  // an encoder–decoder's stack (issue 33)
}

int HeatmapView::window() const {
  if (!result_ || !result_->ok() || cross_) return 0;
  return result_->trace().layers[result_->layer()].heads[result_->head()].options.window;
}

QString HeatmapView::hoverHint() const { return tr("Hover a cell to read its weight."); }

void HeatmapView::dropResult() {
  cross_ = false;
  long_->setPyramid(nullptr, {}, {});  // its producer shares the result (pyramidOf)
  result_.reset();
  shownPyramid_.reset();
  sparePyramid_.reset();
  shownRowMax_.reset();
}

void HeatmapView::showResult(const ResultPtr& result) {
  result_ = result;
  // The plot re-reads the cell under a still cursor (new tokens) or clears the read-out; until then
  // the strip must not name the previous sentence's tokens.
  hover_->setText(hoverHint());
  cross_ = result && result->ok() && showsCross(*result);
  if (!result || !result->ok()) return;
  const int l = result->layer(), h = result->head();
  if (cross_) {
    showCross(l, h);
    return;
  }
  plot_->setAxisTitles(tr("query (attends from)"), tr("key (attends to)"));
  const QStringList labels = result->tokenLabels();
  const QString title = this->title();
  longShown_ = result->trace().tokenCount() > kLongInput;
  if (longShown_) {
    long_->setTitle(title);
    long_->setWindow(window());
    long_->setPyramid(pyramidOf(result, l, h), labels, labels);
    // The spare keeps its levels' storage for the next build, not the result it was drawn from (issue 31: an old
    // model's 1 GB trace stayed alive through it).
    if (sparePyramid_ && sparePyramid_.use_count() == 1) sparePyramid_->releaseProducer();
    long_->setTokenMarks(pinsWithin(result->params.selection.pinned, static_cast<int>(labels.size())), hoveredToken());
    stack_->setCurrentWidget(longBox_);
  } else {
    long_->setPyramid(nullptr, {}, {});  // nor the result it was drawn from
    shownPyramid_.reset();               // 170 MB at 8,192 tokens: not kept for short inputs
    sparePyramid_.reset();
    shownRowMax_.reset();
    plot_->setTitle(title);
    plot_->setWindow(window());
    plot_->setMatrix(*result->attentionMap(l, h), labels, labels);
    plot_->setTokenMarks(pinsWithin(result->params.selection.pinned, static_cast<int>(labels.size())), hoveredToken());
    stack_->setCurrentWidget(plot_);
  }
  updatePinTable();
}

void HeatmapView::showCross(int l, int h) {
  // The decoder's cross-attention (selection.stack "cross"): target rows × source columns, both token lists on the
  // axes; the same map the Cross-attention view draws for one head. Translations are short: always the MatrixPlot.
  longShown_ = false;
  long_->setPyramid(nullptr, {}, {});
  shownPyramid_.reset();
  sparePyramid_.reset();
  shownRowMax_.reset();
  plot_->setAxisTitles(tr("target token (decoder query)"), tr("source token (encoder key)"));
  plot_->setTitle(title());
  plot_->setWindow(0);
  plot_->setMatrix(crossHead(*result_, l, h)->attention, crossTargets(*result_), crossSources(*result_));
  plot_->setTokenMarks({}, -1);  // pins and the hovered token index one text; a cross map has two
  stack_->setCurrentWidget(plot_);
  sums_ = {};
  pinScroll_->hide();
}

void HeatmapView::onHoverChanged(int token) {
  if (cross_) return;
  plot_->setTokenMarks(plot_->markedPins(), token);
  long_->setTokenMarks(long_->markedPins(), token);
}

void HeatmapView::updatePinTable() {
  sums_ = {};
  const HeadTrace& head = result_->trace().layers[result_->layer()].heads[result_->head()];
  const int n = result_->trace().tokenCount();
  sums_.pins = pinsWithin(result_->params.selection.pinned, n);
  pinScroll_->setVisible(!sums_.pins.empty());
  if (sums_.pins.empty()) return;
  sums_.fromPinned.assign(static_cast<std::size_t>(n), 0.0);
  sums_.toPinned.assign(static_cast<std::size_t>(n), 0.0);
  // The pinned rows and columns, read a block of rows at a time: a long input keeps no map (head_maps.h).
  Mat block;
  for (int first = 0; first < n; first += MapPyramid::kBlockRows) {
    const int count = std::min(MapPyramid::kBlockRows, n - first);
    headAttentionRows(head, first, count, block);  // [count, n]
    for (int p : sums_.pins) {
      for (int r = 0; r < count; ++r) sums_.toPinned[static_cast<std::size_t>(first + r)] += block(r, p);
      if (p >= first && p < first + count)
        for (int j = 0; j < n; ++j) sums_.fromPinned[static_cast<std::size_t>(j)] += block(p - first, j);
    }
  }
  renderPinTable();
}

void HeatmapView::renderPinTable() {
  if (!result_ || sums_.pins.empty()) return;
  const int n = static_cast<int>(sums_.fromPinned.size());
  // Long sentences: the 12 tokens with the most attention either way, in sentence order.
  std::vector<int> shown(static_cast<std::size_t>(n));
  std::iota(shown.begin(), shown.end(), 0);
  if (n > 16) {
    const auto weight = [&](int t) { return sums_.fromPinned[t] + sums_.toPinned[t]; };
    std::partial_sort(shown.begin(), shown.begin() + 12, shown.end(),
                      [&](int x, int y) { return weight(x) > weight(y); });
    shown.resize(12);
    std::sort(shown.begin(), shown.end());
  }
  const QStringList labels = result_->tokenLabels();
  const double k = static_cast<double>(sums_.pins.size());
  QStringList pinNames;
  for (int p : sums_.pins) pinNames << QStringLiteral("“%1” [%2]").arg(labels.value(p).toHtmlEscaped()).arg(p);
  QString html =
      tr("<b>Pinned %1</b>%2<table align=center cellspacing=0 cellpadding=3 border=1 style='border-collapse:collapse'>")
          .arg(pinNames.join(", "), n > 16 ? tr(" · the 12 tokens with the most attention") : QString());
  // One row per token and one column per sum: the table grows down (the page scrolls), never sideways (a row per sum
  // and a column per token set the window's minimum width: a pin in lesson 10 grew it to 1,833 px on a projector).
  html +=
      tr("<tr><th>token</th><th>pinned →<br>token Σ</th><th>mean</th><th>token →<br>pinned Σ</th><th>mean</th></tr>");
  for (int t : shown) {
    const auto at = [&](const std::vector<double>& v, double div) {
      return QStringLiteral("<td align=right>%1</td>").arg(v[static_cast<std::size_t>(t)] / div, 0, 'f', 3);
    };
    html += QStringLiteral("<tr><th align=left>%1</th>").arg(labels.value(t).toHtmlEscaped()) +
            at(sums_.fromPinned, 1) + at(sums_.fromPinned, k) + at(sums_.toPinned, 1) + at(sums_.toPinned, k) + "</tr>";
  }
  const ViewStyle& style = ViewStyle::instance();  // the figure's colours, not the window's grey
  pinTable_->setStyleSheet(
      QStringLiteral("background: %1; color: %2;").arg(style.background().name(), style.foreground().name()));
  pinTable_->setText(html + "</table>");
}

ViewNumbers HeatmapView::numbers(const ComputeResult& result) const {
  // Exactly the matrix drawn: the selected head's attention, rows = queries, columns = keys.
  if (const HeadTrace* head = crossHead(result, result.layer(), result.head())) {  // target rows × source columns
    const QString title = tr("Cross-attention · decoder layer %1 · head %2").arg(result.layer()).arg(result.head());
    ViewNumbers n = numbersFrame(result, title);
    n.matrices.push_back(
        labelled("cross_attention_L" + std::to_string(result.layer()) + "_H" + std::to_string(result.head()), title,
                 head->attention.cast<double>(), crossTargets(result), crossSources(result)));
    return n;
  }
  return TraceView::numbers(result);
}

void HeatmapView::setFontScale(double scale) {
  plot_->setFontScale(scale);
  long_->setFontScale(scale);
  QFont f = hover_->font();
  f.setPointSizeF(9 * scale);
  hover_->setFont(f);
  pinTable_->setFont(f);
}

}  // namespace attnlab::ui
