#include "ui/views/common/trace_view.h"

#include "core/model/head_summary.h"
#include "core/session/params_json.h"
#include "core/session/token_pins.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/token_selection.h"

#include <QCoreApplication>

namespace attnlab::ui {
namespace {

std::vector<std::string> toStd(const QStringList& l) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(l.size()));
  for (const QString& s : l) out.push_back(s.toStdString());
  return out;
}

}  // namespace

void TraceView::addAttentionNumbers(ViewNumbers& n, const ComputeResult& result, int l, int h) {
  const std::string id = "_L" + std::to_string(l) + "_H" + std::to_string(h);
  const QString title = tr("Attention · layer %1 · head %2").arg(l).arg(h);
  const QStringList tokens = result.tokenLabels();
  if (tokens.size() <= kFullMapNumbersTokens) {
    n.matrices.push_back(labelled("attention" + id, title, result.attentionMap(l, h)->cast<double>(), tokens, tokens));
    return;
  }
  const HeadTrace& head = result.trace().layers[static_cast<std::size_t>(l)].heads[static_cast<std::size_t>(h)];
  const HeadSummary s = head.keepsMaps() ? summarizeMap(head.attention) : head.summary;
  const int t = static_cast<int>(s.thumbMax.rows()), count = static_cast<int>(tokens.size());
  const int cell = thumbnailCellTokens(count);
  QStringList spans;
  for (int a = 0; a < t; ++a)  // cell a covers tokens [a·s, min((a+1)·s, n))
    spans << QStringLiteral("%1-%2").arg(a * cell).arg(std::min((a + 1) * cell, count) - 1);
  n.matrices.push_back(
      labelled("attention_pooled_max" + id, title + tr(" · pooled (max)"), s.thumbMax.cast<double>(), spans, spans));
  n.matrices.push_back(
      labelled("attention_pooled_mean" + id, title + tr(" · pooled (mean)"), s.thumbMean.cast<double>(), spans, spans));
}

LabelledMatrix TraceView::labelled(const std::string& name, const QString& title, const MatD& values,
                                   const QStringList& rowLabels, const QStringList& colLabels) {
  return {name, title.toStdString(), values, toStd(rowLabels), toStd(colLabels)};
}

ViewNumbers TraceView::numbersFrame(const ComputeResult& result, const QString& title) const {
  ViewNumbers n;
  n.view = viewName().toStdString();
  n.title = title.toStdString();
  n.params = toJson(result.params);
  return n;
}

ViewNumbers TraceView::numbers(const ComputeResult& result) const {
  if (!result.ok()) return numbersFrame(result, displayName());
  const int l = result.layer(), h = result.head();
  ViewNumbers n = numbersFrame(result, tr("Attention · layer %1 · head %2").arg(l).arg(h));
  addAttentionNumbers(n, result, l, h);
  return n;
}

}  // namespace attnlab::ui

namespace attnlab::ui {

bool TraceView::isReady() const {
  for (const BackgroundJob* job : findChildren<BackgroundJob*>())
    if (job->busy()) return false;
  return true;
}

void TraceView::waitForAnalyses() {
  // A finished job's result arrives as a queued event whose handler may start another job: rounds.
  for (int round = 0; round < 4; ++round) {
    for (BackgroundJob* job : findChildren<BackgroundJob*>()) job->waitForIdle();
    QCoreApplication::processEvents();
  }
}

void TraceView::releaseResult() {
  for (BackgroundJob* job : findChildren<BackgroundJob*>()) job->cancel();  // a finished job would bring a map back
  dropResult();
}

void TraceView::setTokenSelection(TokenSelection* selection) {
  selection_ = selection;
  connect(selection, &TokenSelection::hoveredChanged, this, [this](int t) { onHoverChanged(t); });
  connect(selection, &TokenSelection::cleared, this, [this] { onSelectionCleared(); });
}

void TraceView::hoverToken(int token) {
  if (selection_) selection_->setHovered(token);
}

int TraceView::hoveredToken() const { return selection_ ? selection_->hovered() : -1; }

void TraceView::requestPinClick(const ResultPtr& result, int token, bool extend) {
  if (!result || token < 0) return;
  Params p = result->params;
  p.selection.pinned = pinsAfterClick(p.selection.pinned, token, extend);
  emit paramsRequested(p);
}

}  // namespace attnlab::ui
