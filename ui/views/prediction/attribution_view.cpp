#include "ui/views/prediction/attribution_view.h"

#include <QVBoxLayout>

#include "core/predict/prediction.h"
#include "ui/plots/colormaps.h"
#include "ui/plots/matrix_plot.h"
#include "ui/views/prediction/prediction_position.h"

namespace attnlab::ui {
namespace {

/// [layers, heads + 1]: the heads, then the layer's MLP.
MatD attributionMatrix(const Attribution& a) {
  MatD m(a.heads.rows(), a.heads.cols() + 1);
  m.leftCols(a.heads.cols()) = a.heads;
  m.col(a.heads.cols()) = a.mlp;
  return m;
}

QStringList headColumns(int heads) {
  QStringList cols;
  for (int h = 0; h < heads; ++h) cols << QString("H%1").arg(h);
  cols << "MLP";
  return cols;
}

QStringList layerRows(int layers) {
  QStringList rows;
  for (int l = 0; l < layers; ++l) rows << QString("L%1").arg(l);
  return rows;
}

}  // namespace

AttributionView::AttributionView(QWidget* parent) : TraceView(parent) {
  auto* layout = new QVBoxLayout(this);
  plot_ = new MatrixPlot;
  plot_->setRangeMode(MatrixPlot::Range::Symmetric);
  plot_->setColorMap(ColorMap::Diverging);
  plot_->setAxisTitles(tr("layer"), tr("head (and the layer's MLP)"));
  layout->addWidget(plot_, 1);
  sum_ = new QLabel;
  sum_->setWordWrap(true);
  layout->addWidget(sum_);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->hide();
  layout->addWidget(message_);
  job_ = new BackgroundJob(this);
  connect(plot_, &MatrixPlot::cellClicked, this, [this](int row, int col, Qt::KeyboardModifiers) {
    if (row >= 0 && col >= 0 && col < shown_.heads.cols()) emit selectionRequested(row, col);
  });
}

void AttributionView::showMessage(const QString& text) {
  message_->setText(text);
  message_->show();
  plot_->setVisible(false);
  sum_->clear();
}

void AttributionView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  shown_ = {};
  shownResult_ = result;
  if (!result->run->model || !result->run->model->unembedding()) {
    job_->cancel();
    showMessage(tr("%1 has no vocabulary: there is no logit to attribute.")
                    .arg(QString::fromStdString(result->run->info.name)));
    return;
  }
  const ResultPtr r = result;
  const int position = predictionPosition(*r);
  job_->run<Attribution>(
      [r, position](const RunControl&) {
        const Model& m = *r->run->model;
        const std::vector<TokenScore> top = predict(m, r->trace(), position, 1);
        const HeadContributions parts = headContributions(m, r->run->text, r->trace(), position);
        return directLogitAttribution(m, r->trace(), parts, top.front().id);
      },
      [this, r](const Attribution& a) { draw(r, a); }, [this](const QString& e) { showMessage(e); });
}

void AttributionView::draw(const ResultPtr& r, const Attribution& a) {
  shown_ = a;
  message_->hide();
  plot_->setVisible(true);
  const QString target = pieceLabel(r->run->model->vocabularyPiece(a.target), r->run->info.pieceStyle);
  title_ = tr("Direct logit attribution to “%1” at position %2").arg(target).arg(a.position);
  plot_->setTitle(title_);
  plot_->setMatrix(attributionMatrix(a).cast<float>(), layerRows(static_cast<int>(a.heads.rows())),
                   headColumns(static_cast<int>(a.heads.cols())));
  sum_->setText(tr("heads %1 + MLPs %2 + embeddings %3 + biases %4 = %5; the model's logit: %6 (final norm's "
                   "scale frozen at its value for the position)")
                    .arg(a.heads.sum(), 0, 'f', 3)
                    .arg(a.mlp.sum(), 0, 'f', 3)
                    .arg(a.embeddings, 0, 'f', 3)
                    .arg(a.bias, 0, 'f', 3)
                    .arg(a.total(), 0, 'f', 3)
                    .arg(a.logit, 0, 'f', 3));
}

void AttributionView::setFontScale(double scale) {
  plot_->setFontScale(scale);
  QFont f = sum_->font();
  f.setPointSizeF(9 * scale);
  sum_->setFont(f);
}

ViewNumbers AttributionView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, title_);
  if (shownResult_.get() != &result || shown_.heads.size() == 0) return n;  // nothing attributed: no numbers
  n.matrices.push_back(labelled("attribution", title_, attributionMatrix(shown_),
                                layerRows(static_cast<int>(shown_.heads.rows())),
                                headColumns(static_cast<int>(shown_.heads.cols()))));
  return n;
}

}  // namespace attnlab::ui
