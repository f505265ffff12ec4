#include "ui/views/prediction/prediction_view.h"

#include <qcustomplot.h>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/plots/matrix_plot.h"
#include "ui/views/prediction/prediction_position.h"

namespace attnlab::ui {
namespace {

/// The lens grid's positions: the last kLensPositions tokens, and `position` if it is earlier.
std::vector<int> lensPositions(int tokens, int position) {
  std::vector<int> out;
  const int first = std::max(0, tokens - PredictionView::kLensPositions);
  if (position < first) out.push_back(position);
  for (int p = first; p < tokens; ++p) out.push_back(p);
  return out;
}

QString layerLabel(int row) { return row == 0 ? QStringLiteral("emb") : QStringLiteral("L%1").arg(row - 1); }

}  // namespace

PredictionView::PredictionView(QWidget* parent) : TraceView(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel;
  title_->setAlignment(Qt::AlignCenter);
  QFont f = title_->font();
  f.setBold(true);
  title_->setFont(f);
  layout->addWidget(title_);
  auto* top = new QHBoxLayout;
  bars_ = new QCustomPlot;
  bars_->setMinimumHeight(220);
  barItem_ = new QCPBars(bars_->yAxis, bars_->xAxis);  // horizontal: keys on y, probabilities on x
  barItem_->setBrush(QColor(0x44, 0x77, 0xaa));
  barItem_->setPen(Qt::NoPen);
  bars_->xAxis->setLabel(tr("probability"));
  bars_->xAxis->setRange(0, 1);
  bars_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
  bars_->yAxis->setRangeReversed(true);
  top->addWidget(bars_, 3);
  lensList_ = new QLabel;
  lensList_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  lensList_->setTextFormat(Qt::RichText);
  top->addWidget(lensList_, 2);
  layout->addLayout(top, 2);
  lens_ = new MatrixPlot;
  lens_->setRangeMode(MatrixPlot::Range::UnitInterval);
  lens_->setAxisTitles(tr("layer (stream decoded)"), tr("position"));
  layout->addWidget(lens_, 3);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->hide();
  layout->addWidget(message_);
  job_ = new BackgroundJob(this);
  connect(lens_, &MatrixPlot::cellHovered, this, [this](int row, int col, double value) {
    if (row < 0 || !shown_ || row >= outcome_.grid.topId.rows() || col >= outcome_.grid.topId.cols()) return;
    const std::string piece = shown_->run->model->vocabularyPiece(outcome_.grid.topId(row, col));
    lens_->setToolTip(tr("%1 at position %2: %3 (p %4)")
                          .arg(layerLabel(row))
                          .arg(outcome_.grid.positions[static_cast<std::size_t>(col)])
                          .arg(pieceLabel(piece, shown_->run->info.pieceStyle))
                          .arg(value, 0, 'f', 3));
  });
}

void PredictionView::showMessage(const QString& text) {
  message_->setText(text);
  message_->show();
  bars_->setVisible(false);
  lens_->setVisible(false);
  lensList_->clear();
}

void PredictionView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  outcome_ = {};
  if (!result->run->model || !result->run->model->unembedding()) {
    job_->cancel();
    shown_ = result;
    title_->setText(tr("Prediction"));
    showMessage(tr("%1 has no vocabulary to predict: open GPT-2, a Llama / Qwen / Mistral / Gemma checkpoint, or "
                   "a model trained in the Training view.")
                    .arg(QString::fromStdString(result->run->info.name)));
    return;
  }
  const ResultPtr r = result;
  const int position = predictionPosition(*r);
  job_->run<Outcome>(
      [r, position](const RunControl& control) {
        Outcome o;
        o.position = position;
        const Model& m = *r->run->model;
        o.top = predict(m, r->trace(), position, kTop);
        control.checkpoint(0.2);
        o.lens = logitLens(m, r->trace(), position, 1);
        control.checkpoint(0.4);
        o.grid = logitLensGrid(m, r->trace(), lensPositions(r->trace().tokenCount(), position));
        return o;
      },
      [this, r](const Outcome& o) { draw(r, o); }, [this](const QString& e) { showMessage(e); });
}

void PredictionView::draw(const ResultPtr& r, const Outcome& o) {
  shown_ = r;
  outcome_ = o;
  message_->hide();
  bars_->setVisible(true);
  lens_->setVisible(true);
  const std::string& style = r->run->info.pieceStyle;
  const QStringList tokens = r->tokenLabels();
  title_->setText(tr("Next token after “%1” (position %2)").arg(tokens.value(o.position)).arg(o.position));
  QVector<double> keys, values;
  auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(bars_->yAxis->ticker());
  ticker->clear();
  for (std::size_t i = 0; i < o.top.size(); ++i) {
    keys << static_cast<double>(i);
    values << o.top[i].prob;
    ticker->addTick(static_cast<double>(i), QString("%1  %2 (logit %3)")
                                                .arg(pieceLabel(o.top[i].token, style))
                                                .arg(o.top[i].prob, 0, 'f', 3)
                                                .arg(o.top[i].logit, 0, 'f', 2));
  }
  barItem_->setData(keys, values);
  bars_->yAxis->setRange(-0.6, static_cast<double>(o.top.size()) - 0.4);
  bars_->xAxis->setRange(0, std::max(0.05, o.top.empty() ? 1.0 : std::min(1.0, o.top.front().prob * 1.1)));
  bars_->replot();
  QString list = tr("<b>Logit lens at position %1</b><br>").arg(o.position);
  for (const LensRow& row : o.lens)
    if (!row.top.empty())
      list += QString("%1: %2 <span style='color:gray'>%3</span><br>")
                  .arg(layerLabel(row.layer + 1))
                  .arg(pieceLabel(row.top.front().token, style).toHtmlEscaped())
                  .arg(row.top.front().prob, 0, 'f', 3);
  lensList_->setText(list);
  QStringList rows, cols;
  for (int i = 0; i < o.grid.topProb.rows(); ++i) rows << layerLabel(i);
  for (int p : o.grid.positions) cols << tokens.value(p);
  lens_->setTitle(tr("Logit lens: probability of each stream's top token"));
  lens_->setMatrix(o.grid.topProb.cast<float>(), rows, cols);
}

void PredictionView::setFontScale(double scale) {
  lens_->setFontScale(scale);
  QFont f = bars_->yAxis->tickLabelFont();
  f.setPointSizeF(9 * scale);
  bars_->yAxis->setTickLabelFont(f);
  bars_->xAxis->setTickLabelFont(f);
  bars_->replot();
}

ViewNumbers PredictionView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, title_->text());
  const Outcome& o = outcome_;
  if (shown_.get() != &result || o.top.empty()) return n;  // nothing predicted (no vocabulary): no numbers
  MatD top(static_cast<Eigen::Index>(o.top.size()), 2);
  QStringList rows;
  for (std::size_t i = 0; i < o.top.size(); ++i) {
    top(static_cast<Eigen::Index>(i), 0) = o.top[i].logit;
    top(static_cast<Eigen::Index>(i), 1) = o.top[i].prob;
    rows << QString::fromStdString(o.top[i].token);
  }
  n.matrices.push_back(
      labelled("prediction", tr("Top %1 next tokens").arg(o.top.size()), top, rows, {"logit", "prob"}));
  QStringList lensRows, lensCols;
  for (int i = 0; i < o.grid.topProb.rows(); ++i) lensRows << layerLabel(i);
  for (int p : o.grid.positions) lensCols << QString::number(p);
  n.matrices.push_back(
      labelled("logit_lens_prob", tr("Logit lens: top-token probability"), o.grid.topProb, lensRows, lensCols));
  n.matrices.push_back(
      labelled("logit_lens_id", tr("Logit lens: top-token id"), o.grid.topId.cast<double>(), lensRows, lensCols));
  return n;
}

}  // namespace attnlab::ui
