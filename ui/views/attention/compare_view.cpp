#include "ui/views/attention/compare_view.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "core/base/errors.h"
#include "core/model/head_maps.h"
#include "core/session/params_json.h"
#include "ui/plots/view_style.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/head_names.h"

namespace attnlab::ui {
namespace {

/// The model and the parameters that make a run (not the selection or the display, which only redraw).
std::string runKey(const Params& q, const Model* model) {
  nlohmann::json j = toJson(q);
  j.erase("selection");
  j.erase("display");
  return std::to_string(reinterpret_cast<std::uintptr_t>(model)) + "|" + j.dump();
}

/// One side's map of head (l, h), cut to its first `limit` positions, with its token labels.
struct Side {
  Mat map;
  QStringList labels;
  std::vector<std::string> tokens;
  int tokenCount = 0;  ///< before cutting
};

Side sideOf(const ComputeResult& r, int l, int h, int limit) {
  Side s;
  // Only the rows shown: a long input's whole map (8,192 tokens: 268 MB) is past the map cache's budget and threw out
  // of numbers() (an export of this view ended the program); rows [0, n) of the full map, their first n keys.
  const HeadTrace& head = r.trace().layers[static_cast<std::size_t>(l)].heads[static_cast<std::size_t>(h)];
  const int total = r.trace().tokenCount();
  const int n = std::min(total, limit);
  s.tokenCount = total;
  Mat rows;
  if (n > 0) headAttentionRows(head, 0, n, rows);
  s.map = n > 0 ? Mat(rows.leftCols(n)) : Mat();
  s.labels = r.tokenLabels().mid(0, n);
  for (int i = 0; i < n; ++i) s.tokens.push_back(r.trace().tokens[static_cast<std::size_t>(i)]);
  return s;
}

QString headList(const std::vector<HeadRef>& heads) {
  QStringList names;
  for (const HeadRef& h : heads) names << headLabel(h.layer, h.head);
  return names.join(", ");
}

/// A pane: its plot, or a message in its place (no second text yet, no ablation, a failed run).
QStackedWidget* pane(MatrixPlot* plot, QLabel*& message) {
  auto* stack = new QStackedWidget;
  stack->addWidget(plot);
  message = new QLabel;
  message->setWordWrap(true);
  message->setAlignment(Qt::AlignCenter);
  message->setMargin(8);
  stack->addWidget(message);
  return stack;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : TraceView(parent) {
  job_ = new BackgroundJob(this);
  modeBox_ = new QComboBox;
  modeBox_->addItems({tr("Second text"), tr("Without the ablation")});
  modeBox_->setToolTip(
      tr("Compare the window's text with a second text, or the window's run with the same text "
         "run without its switched-off heads."));
  text_ = new QLineEdit;
  text_->setObjectName("secondText");
  text_->setPlaceholderText(tr("A second text to compare with the window's"));
  text_->setToolTip(
      tr("Run with the same model and settings as the window's text; the panes align its tokens "
         "with the window's by position."));
  swap_ = new QPushButton(tr("Swap"));
  swap_->setToolTip(tr("Make the second text the window's text, and the window's text the second."));
  auto* controls = new QWidget;
  controls->setProperty(kScreenOnlyProperty, true);  // a figure shows the maps and the caption, not the field
  auto* row = new QHBoxLayout(controls);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(modeBox_);
  row->addWidget(text_, 1);
  row->addWidget(swap_);

  left_ = new MatrixPlot;
  right_ = new MatrixPlot;
  diff_ = new MatrixPlot;
  for (MatrixPlot* p : {left_, right_, diff_}) {
    p->setAxisTitles(tr("query"), tr("key"));
    p->setTokenAxes(true, true);
    p->setMinimumHeight(160);
    connect(p, &MatrixPlot::cellHovered, this, [this](int r, int, double) { hoverToken(r); });
  }
  diff_->setColorMap(ColorMap::Diverging);
  diff_->setRangeMode(MatrixPlot::Range::Symmetric);
  QLabel *leftMessage = nullptr, *rightMessage = nullptr, *diffMessage = nullptr;
  auto* panes = new QHBoxLayout;
  panes->setContentsMargins(0, 0, 0, 0);
  for (auto [plot, message] : {std::pair{left_, &leftMessage}, {right_, &rightMessage}, {diff_, &diffMessage}})
    panes->addWidget(pane(plot, *message), 1);
  leftMessage->setObjectName("leftMessage");
  rightMessage->setObjectName("rightMessage");
  diffMessage->setObjectName("differenceMessage");
  caption_ = new QLabel;
  caption_->setObjectName("compareCaption");
  caption_->setWordWrap(true);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(controls);
  layout->addLayout(panes, 1);
  layout->addWidget(caption_);

  // Typing in the field runs the second text a moment after the last keystroke, as the window's editor does.
  auto* debounce = new QTimer(this);
  debounce->setSingleShot(true);
  debounce->setInterval(60);
  connect(debounce, &QTimer::timeout, this, &CompareView::refresh);
  connect(text_, &QLineEdit::textEdited, debounce, qOverload<>(&QTimer::start));
  connect(text_, &QLineEdit::returnPressed, this, &CompareView::refresh);
  connect(modeBox_, &QComboBox::currentIndexChanged, this, [this](int i) { setMode(static_cast<Mode>(i)); });
  connect(swap_, &QPushButton::clicked, this, &CompareView::swapTexts);
  setMode(Mode::SecondText);
}

void CompareView::setMode(Mode mode) {
  mode_ = mode;
  {
    const QSignalBlocker block(modeBox_);
    modeBox_->setCurrentIndex(static_cast<int>(mode));
  }
  text_->setVisible(mode == Mode::SecondText);
  swap_->setVisible(mode == Mode::SecondText);
  refresh();
}

void CompareView::setSecondText(const QString& text) {
  text_->setText(text);
  refresh();
}

QString CompareView::secondText() const { return text_->text(); }

void CompareView::swapTexts() {
  if (!result_ || text_->text().isEmpty()) return;
  // From the parameters in force, not the last run's: an edit typed since (or whose run failed) moves to the field
  // instead of being thrown away.
  Params p = paramsInForce(*result_);
  const QString window = QString::fromStdString(p.sentence);
  p.sentence = text_->text().toStdString();
  text_->setText(window);
  emit paramsRequested(p);  // the window's next result brings the swapped pair
}

bool CompareView::otherParams(const ComputeResult& r, Params& q, QString& why) const {
  q = r.params;
  if (mode_ == Mode::SecondText) {
    if (text_->text().trimmed().isEmpty()) {
      why = tr("Type a second text in the field above: its map appears here, aligned with this one by position.");
      return false;
    }
    q.sentence = text_->text().toStdString();
    return true;
  }
  if (r.params.prediction.ablate.empty()) {
    why =
        tr("No head is switched off. Switch heads off (Prediction view, or the Heads views) to see the map without "
           "and with them.");
    return false;
  }
  q.prediction.ablate.clear();
  return true;
}

void CompareView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;  // the last valid comparison stays
  // Another model: the other run (a whole trace of the model left) goes now, not when this model's arrives (issue 31).
  if (other_ && other_->run->model != result->run->model) releaseOther();
  result_ = result;
  refresh();
}

void CompareView::releaseOther() {
  job_->cancel();  // a run still making it for the model left delivers nothing
  other_.reset();
  otherKey_.clear();
}

void CompareView::refresh() {
  if (!result_) return;
  Params q;
  QString why;
  if (!otherParams(*result_, q, why)) {
    wantedKey_.clear();
    otherError_ = why;
    releaseOther();  // nothing to compare with: the other run is not shown, so not kept either
    draw();
    return;
  }
  const std::shared_ptr<const Model> model = result_->run->model;
  wantedKey_ = runKey(q, model.get());
  if (wantedKey_ == otherKey_ && other_) {  // only the selection changed, or the window's text in Second text mode
    otherError_.clear();
    draw();
    return;
  }
  otherError_.clear();
  draw();  // the window's side at once; the other when its run is done
  const std::string key = wantedKey_;
  job_->run<ResultPtr>(
      [q, model](const RunControl& control) -> ResultPtr {
        auto r = std::make_shared<ComputeResult>();
        r->params = q;
        r->run = std::make_shared<const PipelineResult>(runPipeline(q, model, control));
        return r;
      },
      [this, key](const ResultPtr& r) {
        other_ = r;
        otherKey_ = key;
        draw();
      },
      [this](const QString& error) {
        otherError_ = tr("This run cannot be made: %1").arg(error);
        draw();
      });
}

ResultPtr CompareView::otherFor(const ComputeResult& r) const {
  Params q;
  QString why;
  if (!other_ || !otherParams(r, q, why) || runKey(q, r.run->model.get()) != otherKey_) return nullptr;
  return other_;
}

std::pair<ResultPtr, ResultPtr> CompareView::sides(const ResultPtr& shown) const {
  const ResultPtr other = otherFor(*shown);
  return mode_ == Mode::SecondText ? std::pair{shown, other} : std::pair{other, shown};
}

void CompareView::draw() {
  if (!result_ || !result_->ok()) return;
  const int l = result_->layer(), h = result_->head();
  const auto [a, b] = sides(result_);
  const bool text = mode_ == Mode::SecondText;
  const QString titleA = text ? tr("A: this text") : tr("A: plain"),
                titleB = text ? tr("B: second text") : tr("B: ablated");
  auto* leftStack = static_cast<QStackedWidget*>(left_->parentWidget());
  auto* rightStack = static_cast<QStackedWidget*>(right_->parentWidget());
  auto* diffStack = static_cast<QStackedWidget*>(diff_->parentWidget());
  const auto message = [](QStackedWidget* stack, const QString& text) {
    static_cast<QLabel*>(stack->widget(1))->setText(text);
    stack->setCurrentIndex(1);
  };
  Side sa, sb;
  QString failed;
  try {
    if (a) sa = sideOf(*a, l, h, kMaxPositions);
    if (b) sb = sideOf(*b, l, h, kMaxPositions);
  } catch (const InputError& e) {  // a long input's map beyond the cache's budget
    failed = QString::fromUtf8(e.what());
  }
  const QString pending = otherError_.isEmpty() ? tr("Computing…") : otherError_;
  const int extent = static_cast<int>(std::max(sa.map.rows(), sb.map.rows()));
  // The colour scale is one for both panes, so equal colours are equal weights: [0, 1], or [0, the larger maximum]
  // when the window's attention scale follows the maps.
  double hi = 1.0;
  if (ViewStyle::instance().attentionScale() != AttentionScale::Unit) {
    hi = 0;
    for (const Mat* m : {&sa.map, &sb.map})
      if (m->size()) hi = std::max(hi, static_cast<double>(m->maxCoeff()));
    if (hi <= 0) hi = 1.0;
  }
  const auto show = [&](MatrixPlot* plot, QStackedWidget* stack, const Side& s, const QString& title) {
    if (s.map.size() == 0) return message(stack, failed.isEmpty() ? pending : failed);
    plot->setExtent(extent, extent);
    plot->setFixedRange(0, hi);
    plot->setTitle(title);
    plot->setMatrix(s.map, s.labels, s.labels);
    plot->setTokenMarks({}, hoveredToken());
    stack->setCurrentIndex(0);
  };
  show(left_, leftStack, sa, titleA);
  show(right_, rightStack, sb, titleB);
  // Nothing to compare with (no second text, no head switched off): the window's pane takes the room, the empty pane
  // and the difference step aside, and the caption says once what to do (a narrow pane cut its axis title, issue 31).
  const bool alone = wantedKey_.empty() && failed.isEmpty();
  leftStack->setVisible(!alone || sa.map.size() > 0);
  rightStack->setVisible(!alone || sb.map.size() > 0);
  diffStack->setVisible(!alone);
  QString head = tr("Layer %1 · head %2.").arg(l).arg(h);
  const QString whatA =
      text ? tr("A is the window's text")
           : tr("A is the text without the switched-off heads (%1)").arg(headList(result_->params.prediction.ablate));
  const QString whatB = text ? tr("B the second text") : tr("B with them, the window's run");
  if (sa.map.size() == 0 || sb.map.size() == 0) {
    message(diffStack, tr("B − A appears when both maps are there."));
    // Alone, the prompt is said here only (the empty pane stepped aside); while the other run is being made the pane
    // says "Computing…" and the caption what is shown. A failure is said in both: it is what the user must read.
    const Side& shown = text ? sa : sb;
    const QString which = text ? tr("A is the window's text (%1 tokens).").arg(shown.tokenCount)
                               : tr("B is the window's run (%1 tokens).").arg(shown.tokenCount);
    caption_->setText(head + " " + (!failed.isEmpty() ? failed : !otherError_.isEmpty() ? otherError_ : which));
    return;
  }
  const MapDifference d = compareMaps(sa.map, sb.map, sa.tokens, sb.tokens);
  diff_->setExtent(extent, extent);
  diff_->setTitle(tr("B − A"));
  diff_->setMatrix(d.difference, sa.labels.mid(0, d.common), sa.labels.mid(0, d.common));
  diff_->setTokenMarks({}, hoveredToken());
  diffStack->setCurrentIndex(0);
  QString where;
  if (sa.tokenCount == sb.tokenCount)
    where = tr("B − A on all %1 positions.").arg(d.common);
  else {
    const int last = std::max(sa.tokenCount, sb.tokenCount) - 1;
    const QString longer = sa.tokenCount > sb.tokenCount ? "A" : "B";
    where = tr("B − A only on the %1 positions both have (the common prefix); %2.")
                .arg(d.common)
                .arg(last == d.common ? tr("position %1 is only in %2").arg(d.common).arg(longer)
                                      : tr("positions %1–%2 are only in %3").arg(d.common).arg(last).arg(longer));
  }
  if (std::max(sa.tokenCount, sb.tokenCount) > kMaxPositions)
    where += tr(" Shown: the first %1 positions.").arg(kMaxPositions);
  if (text && d.sameTokens > 0 && d.sameTokens < d.common)
    where += d.sameTokens == 1 ? tr(" The first token is the same in both.")
                               : tr(" The first %1 tokens are the same in both.").arg(d.sameTokens);
  if (!text) {
    int first = result_->trace().layerCount();
    for (const HeadRef& r : result_->params.prediction.ablate) first = std::min(first, r.layer);
    if (l <= first)
      where += tr(" A head switched off changes the maps of later layers only: in layer %1 B − A is 0.").arg(l);
  }
  caption_->setText(QString("%1 %2, %3 (%4 and %5 tokens). %6")
                        .arg(head, whatA, whatB)
                        .arg(sa.tokenCount)
                        .arg(sb.tokenCount)
                        .arg(where));
}

void CompareView::onHoverChanged(int token) {
  for (MatrixPlot* p : {left_, right_, diff_}) p->setTokenMarks({}, token);
}

void CompareView::setFontScale(double scale) {
  for (MatrixPlot* p : {left_, right_, diff_}) p->setFontScale(scale);
  for (QWidget* w : std::initializer_list<QWidget*>{caption_, modeBox_, text_, swap_}) {
    QFont f = w->font();
    f.setPointSizeF(QApplication::font().pointSizeF() * scale);
    w->setFont(f);
  }
}

ViewNumbers CompareView::numbers(const ComputeResult& result) const {
  if (!result.ok()) return numbersFrame(result, displayName());
  const int l = result.layer(), h = result.head();
  ViewNumbers n = numbersFrame(result, tr("Side by side · layer %1 · head %2").arg(l).arg(h));
  // The result given and the other run made for it (when it is there): the numbers of what is drawn for `result`.
  const ResultPtr self(std::shared_ptr<const ComputeResult>(), &result);  // not owning: used within this call
  const auto [a, b] = sides(self);
  const std::string id = "_L" + std::to_string(l) + "_H" + std::to_string(h);
  Side sa, sb;
  if (a) {
    sa = sideOf(*a, l, h, kMaxPositions);
    n.matrices.push_back(labelled("a_attention" + id, tr("A · layer %1 · head %2").arg(l).arg(h), sa.map.cast<double>(),
                                  sa.labels, sa.labels));
  }
  if (b) {
    sb = sideOf(*b, l, h, kMaxPositions);
    n.matrices.push_back(labelled("b_attention" + id, tr("B · layer %1 · head %2").arg(l).arg(h), sb.map.cast<double>(),
                                  sb.labels, sb.labels));
  }
  if (a && b) {
    const MapDifference d = compareMaps(sa.map, sb.map, sa.tokens, sb.tokens);
    const QStringList labels = sa.labels.mid(0, d.common);
    n.matrices.push_back(labelled("difference" + id, tr("B − A · layer %1 · head %2").arg(l).arg(h),
                                  d.difference.cast<double>(), labels, labels));
  }
  return n;
}

}  // namespace attnlab::ui
