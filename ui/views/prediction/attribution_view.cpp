#include "ui/views/prediction/attribution_view.h"

#include <QHBoxLayout>
#include <QVBoxLayout>

#include "core/base/errors.h"
#include "core/predict/prediction.h"
#include "ui/plots/colormaps.h"
#include "ui/plots/flow_layout.h"
#include "ui/plots/matrix_plot.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/prediction/prediction_position.h"

namespace attnlab::ui {
namespace {

/// The form for (target, versus) among `forms`, or nullptr.
const ProjectedForm* findForm(const std::vector<ProjectedForm>& forms, int target, int versus) {
  for (const ProjectedForm& f : forms)
    if (f.target == target && f.versus == versus) return &f;
  return nullptr;
}

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

/// T5's decoder: [layers, 2·heads + 1]: the self-attention heads, the cross-attention heads, then the layer's FF.
MatD decoderMatrix(const DecoderAttribution& a) {
  const Eigen::Index h = a.self.cols();
  MatD m(a.self.rows(), 2 * h + 1);
  m.leftCols(h) = a.self;
  m.middleCols(h, h) = a.cross;
  m.col(2 * h) = a.ff;
  return m;
}

QStringList decoderColumns(int heads) {
  QStringList cols;
  for (int h = 0; h < heads; ++h) cols << QString("self H%1").arg(h);
  for (int h = 0; h < heads; ++h) cols << QString("cross H%1").arg(h);
  cols << "FF";
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
  auto* tokens = new QWidget;
  auto* row = new FlowLayout(tokens);  // wraps on a narrow view
  target_ = new QLineEdit;
  target_->setPlaceholderText(tr("the prediction"));
  target_->setToolTip(
      tr("The token whose logit is split: a piece as the vocabulary spells it (Ġmat), an id, or "
         "text that is one token ( mat). Empty: the model's prediction."));
  versus_ = new QLineEdit;
  versus_->setPlaceholderText(tr("none"));
  versus_->setToolTip(tr("A second token: the map then splits logit(target) − logit(versus)"));
  auto* hint = new QLabel(tr("Click a head to select it; Ctrl+click switches it off (ablation)."));
  target_->setMinimumWidth(140);
  versus_->setMinimumWidth(140);
  row->addLabelled(tr("&Target"), target_);
  row->addLabelled(tr("&versus"), versus_);
  row->addWidget(hint);
  tokens->setProperty(kScreenOnlyProperty, true);  // the figure's title names the tokens
  layout->addWidget(tokens);
  connect(target_, &QLineEdit::editingFinished, this, &AttributionView::editTokens);
  connect(versus_, &QLineEdit::editingFinished, this, &AttributionView::editTokens);
  plot_ = new MatrixPlot;
  plot_->setRangeMode(MatrixPlot::Range::Symmetric);
  plot_->setColorMap(ColorMap::Diverging);
  plot_->setAxisTitles(tr("layer"), tr("head (and the layer's MLP)"));
  // A cell is one head's (or MLP's) share of the logit at the predicted position, not an edge "L1 [1] → H1 [1]".
  plot_->setCellNamer([this](int row, int col) {
    const Eigen::Index heads = showsDecoder() ? shownDecoder_.self.cols() : shown_.heads.cols();
    const QString part = !showsDecoder()
                             ? (col < heads ? tr("layer %1 head %2").arg(row).arg(col) : tr("layer %1 MLP").arg(row))
                         : col < heads     ? tr("decoder layer %1 self-attention head %2").arg(row).arg(col)
                         : col < 2 * heads ? tr("decoder layer %1 cross-attention head %2").arg(row).arg(col - heads)
                                           : tr("decoder layer %1 FF").arg(row);
    if (!shownResult_ || !shownResult_->ok()) return part;
    const int position = predictionPosition(*shownResult_);
    return tr("%1, position %2 “%3”").arg(part).arg(position).arg(shownResult_->tokenLabels().value(position));
  });
  layout->addWidget(plot_, 1);
  sum_ = new QLabel;
  sum_->setWordWrap(true);
  layout->addWidget(sum_);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->hide();
  layout->addWidget(message_);
  job_ = new BackgroundJob(this);
  connect(plot_, &MatrixPlot::cellClicked, this, [this](int row, int col, Qt::KeyboardModifiers modifiers) {
    if (showsDecoder() && shownResult_ && row >= 0 && col >= 0 && col < 2 * shownDecoder_.self.cols()) {
      // T5's decoder: a self head (the decoder's list) or a cross head (the cross list).
      const int heads = static_cast<int>(shownDecoder_.self.cols());
      const bool cross = col >= heads;
      if (!(modifiers & Qt::ControlModifier)) {
        emit selectionRequested(row, cross ? col - heads : col);
        return;
      }
      Params p = shownResult_->params;
      toggleAblation(p.prediction, {row, cross ? col - heads : col}, cross ? "cross" : "decoder");
      emit paramsRequested(p);
      return;
    }
    if (showsDecoder() || row < 0 || col < 0 || col >= shown_.heads.cols() || !shownResult_) return;
    if (!(modifiers & Qt::ControlModifier)) {
      emit selectionRequested(row, col);
      return;
    }
    Params p = shownResult_->params;
    toggleAblation(p.prediction, {row, col});
    emit paramsRequested(p);
  });
}

void AttributionView::editTokens() {
  if (!shownResult_) return;
  Params p = shownResult_->params;
  p.prediction.target = target_->text().trimmed().isEmpty() ? std::string() : target_->text().toStdString();
  p.prediction.versus = versus_->text().trimmed().isEmpty() ? std::string() : versus_->text().toStdString();
  if (p.prediction.target == shownResult_->params.prediction.target &&
      p.prediction.versus == shownResult_->params.prediction.versus)
    return;
  emit paramsRequested(p);
}

void AttributionView::showMessage(const QString& text) {
  message_->setText(text);
  message_->show();
  plot_->setVisible(false);
  sum_->clear();
}

void AttributionView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  // The previous run, when it is this text's run without ablations: its prediction is the target to freeze.
  const ResultPtr previous = shownResult_;
  if (shownResult_ && shownResult_->run->model != result->run->model) {
    // The map on screen is another model's: hidden until this model's arrives (or its message says why not).
    plot_->setVisible(false);
    sum_->setText(tr("Attributing on %1…").arg(QString::fromStdString(result->run->info.name)));
  }
  shown_ = {};
  shownDecoder_ = {};
  shownResult_ = result;
  const PredictionSettings& s = result->params.prediction;
  if (!target_->hasFocus()) target_->setText(QString::fromStdString(s.target));
  if (!versus_->hasFocus()) versus_->setText(QString::fromStdString(s.versus));
  std::vector<std::pair<int, int>> crossed;
  for (const HeadRef& h : s.ablate) crossed.emplace_back(h.layer, h.head);
  plot_->setCrossedCells(crossed);
  if (!result->run->model || !result->run->model->unembedding()) {
    job_->cancel();
    showMessage(tr("%1 has no vocabulary: there is no logit to attribute.")
                    .arg(QString::fromStdString(result->run->info.name)));
    return;
  }
  if (result->run->encdec) {  // the decoder of an encoder–decoder (its encoder has no unembedding: above)
    const std::string kind = result->run->info.kind;
    if (kind == "t5") {
      showDecoderResult(result);
      return;
    }
    job_->cancel();
    showMessage(tr("Direct logit attribution is not defined for %1's decoder: it is post-LN, so every layer's "
                   "output passes through a LayerNorm of the whole stream, and the logit is not a sum of the "
                   "heads' shares. The Prediction view shows its logit lens.")
                    .arg(QString::fromStdString(kind)));
    return;
  }
  const ResultPtr r = result;
  const int position = predictionPosition(*r);
  // W_O is read once per model (GPT-2 small: 7 probe passes, ~0.7 s) and kept; each edit then costs
  // H·d_head·d multiply-adds per layer instead of a probe forward pass.
  // So are the projected forms (W_O · a target's direction) of the last target and the run's top predictions: a
  // toggle that keeps the prediction, or makes one of those the prediction, skips that pass over W_O.
  std::shared_ptr<const OutputProjections> cached = projectionsModel_.lock() == r->run->model ? projections_ : nullptr;
  FormsPtr forms = cached ? forms_ : nullptr;
  // Heads switched off and no target named: the target is the prediction without them, frozen per text and position.
  const bool freeze = s.target.empty() && !s.ablate.empty();
  const bool sameText =
      frozen_.model.lock() == r->run->model && frozen_.ids == r->trace().tokenIds && frozen_.position == position;
  const int frozen = freeze && sameText ? frozen_.target : -1;
  const ResultPtr plain = freeze && frozen < 0 && previous && previous->run->model == r->run->model &&
                                  previous->params.prediction.ablate.empty() &&
                                  previous->trace().tokenIds == r->trace().tokenIds
                              ? previous
                              : nullptr;
  job_->run<Outcome>(
      [r, position, cached, forms, freeze, frozen, plain](const RunControl& control) {
        const Model& m = *r->run->model;
        const PredictionSettings& s = r->params.prediction;
        // Unknown tokens fail here, before any work, with resolveToken's message.
        const int named = s.target.empty() ? -1 : resolveToken(m, s.target);
        const int versus = s.versus.empty() ? -1 : resolveToken(m, s.versus);
        // predict throws, naming the token, when the logits are not finite (damaged or overflowing weights).
        const std::vector<TokenScore> top = predict(m, r->trace(), position, kFormTargets);
        if (named < 0 && top.empty()) throw InputError("the model predicts no token at this position");
        Outcome o;
        o.prediction = top.empty() ? -1 : top.front().id;
        if (freeze) {  // the last run without ablations, or one forward pass of the text without them
          o.frozen = frozen >= 0 ? frozen
                     : plain     ? predict(m, plain->trace(), position, 1).front().id
                                 : predict(m, m.forward(r->run->text, {control.cancel, {}}), position, 1).front().id;
        }
        const int target = named >= 0 ? named : o.frozen >= 0 ? o.frozen : top.front().id;
        o.projections = cached ? cached
                               : std::make_shared<const OutputProjections>(
                                     readOutputProjections(m, r->run->text, 128, control.part(0.0, 0.9)));
        o.forms = forms && findForm(*forms, target, versus) ? forms : nullptr;
        if (!o.forms) {
          std::vector<int> targets{target};
          for (const TokenScore& t : top)
            if (t.id != target) targets.push_back(t.id);
          o.forms =
              std::make_shared<const std::vector<ProjectedForm>>(projectedForms(m, *o.projections, targets, versus));
        }
        o.attribution = directLogitAttribution(m, r->trace(), *findForm(*o.forms, target, versus), position);
        return o;
      },
      [this, r](const Outcome& o) {
        projections_ = o.projections;
        projectionsModel_ = r->run->model;
        forms_ = o.forms;
        if (o.frozen >= 0) frozen_ = {r->run->model, r->trace().tokenIds, o.attribution.position, o.frozen};
        draw(r, o.attribution, o);
      },
      [this](const QString& e) { showMessage(e); });
}

void AttributionView::showDecoderResult(const ResultPtr& result) {
  const PredictionSettings& s = result->params.prediction;
  std::vector<std::pair<int, int>> crossed;
  const EncDecFolderModel* folder = result->run->encdec->model->folder();  // T5's (the caller checked the kind)
  if (!folder) return showMessage(tr("This two-text model has no output head: there is no logit to attribute."));
  const int heads = folder->model().config().decoderHeads;
  for (const HeadRef& h : s.ablate) crossed.emplace_back(h.layer, h.head);
  for (const HeadRef& h : s.ablateCross) crossed.emplace_back(h.layer, heads + h.head);
  plot_->setCrossedCells(crossed);
  const ResultPtr r = result;
  const int position = predictionPosition(*r);
  job_->run<DecoderAttribution>(
      [r, position](const RunControl&) {
        const Model& m = *r->run->model;
        const EncDecRun& run = *r->run->encdec;
        const PredictionSettings& s = r->params.prediction;
        const int named = s.target.empty() ? -1 : resolveToken(m, s.target);
        const int versus = s.versus.empty() ? -1 : resolveToken(m, s.versus);
        const std::vector<TokenScore> top = predict(m, r->trace(), position, 1);  // throws for non-finite logits
        if (named < 0 && top.empty()) throw InputError("the model predicts no token at this position");
        // The decoder side holds the decoder's Trace itself; the run keeps the cross-attention (encdec_run.cpp).
        return decoderLogitAttribution(run.model->folder()->model(), r->trace(), run.trace->cross, position,
                                       named >= 0 ? named : top.front().id, versus);
      },
      [this, r](const DecoderAttribution& a) { drawDecoder(r, a); }, [this](const QString& e) { showMessage(e); });
}

void AttributionView::drawDecoder(const ResultPtr& r, const DecoderAttribution& a) {
  shownDecoder_ = a;
  message_->hide();
  plot_->setVisible(true);
  const auto label = [&](int id) { return r->idLabel(id); };
  title_ = (a.versus < 0 ? tr("Direct logit attribution to “%1” at position %2").arg(label(a.target)).arg(a.position)
                         : tr("Direct logit attribution to logit(“%1”) − logit(“%2”) at position %3")
                               .arg(label(a.target), label(a.versus))
                               .arg(a.position)) +
           stackTag(*r);
  plot_->setTitle(title_);
  plot_->setAxisTitles(tr("decoder layer"), tr("self-attention heads · cross-attention heads · FF"));
  plot_->setMatrix(decoderMatrix(a).cast<float>(), layerRows(static_cast<int>(a.self.rows())),
                   decoderColumns(static_cast<int>(a.self.cols())));
  sum_->setText(tr("embedding %1 + self-attention heads %2 + cross-attention heads %3 + FF %4 = %5 (the rest %6); "
                   "the model's %8: %7 (the final RMSNorm's σ = %9 frozen at its value for the position)")
                    .arg(a.embeddings, 0, 'f', 3)
                    .arg(a.self.sum(), 0, 'f', 3)
                    .arg(a.cross.sum(), 0, 'f', 3)
                    .arg(a.ff.sum(), 0, 'f', 3)
                    .arg(a.parts(), 0, 'f', 3)
                    .arg(a.rest, 0, 'g', 2)
                    .arg(a.logit, 0, 'f', 3)
                    .arg(a.versus < 0 ? tr("logit") : tr("logit difference"))
                    .arg(a.sigma, 0, 'f', 3));
}

void AttributionView::draw(const ResultPtr& r, const Attribution& a, const Outcome& o) {
  shown_ = a;
  plot_->setAxisTitles(tr("layer"), tr("head (and the layer's MLP)"));
  message_->hide();
  plot_->setVisible(true);
  const auto label = [&](int id) { return r->idLabel(id); };
  title_ = a.versus < 0 ? tr("Direct logit attribution to “%1” at position %2").arg(label(a.target)).arg(a.position)
                        : tr("Direct logit attribution to logit(“%1”) − logit(“%2”) at position %3")
                              .arg(label(a.target), label(a.versus))
                              .arg(a.position);
  plot_->setTitle(title_);
  plot_->setMatrix(attributionMatrix(a).cast<float>(), layerRows(static_cast<int>(a.heads.rows())),
                   headColumns(static_cast<int>(a.heads.cols())));
  sum_->setText(tr("heads %1 + MLPs %2 + embeddings %3 + biases %4 = %5; the model's %7: %6 (final norm's "
                   "scale frozen at its value for the position)")
                    .arg(a.heads.sum(), 0, 'f', 3)
                    .arg(a.mlp.sum(), 0, 'f', 3)
                    .arg(a.embeddings, 0, 'f', 3)
                    .arg(a.bias, 0, 'f', 3)
                    .arg(a.total(), 0, 'f', 3)
                    .arg(a.logit, 0, 'f', 3)
                    .arg(a.versus < 0 ? tr("logit") : tr("logit difference")));
  if (o.frozen >= 0) {
    QStringList heads;
    for (const std::string& h : formatHeadList(r->params.prediction.ablate)) heads << QString::fromStdString(h);
    sum_->setText(sum_->text() + "\n" +
                  tr("Target frozen at “%1”, the prediction before heads %2 were switched off%3.")
                      .arg(label(o.frozen), heads.join(", "),
                           o.prediction >= 0 && o.prediction != o.frozen
                               ? tr(" (with them off the model predicts “%1”)").arg(label(o.prediction))
                               : QString()));
  }
}

void AttributionView::setFontScale(double scale) {
  plot_->setFontScale(scale);
  QFont f = sum_->font();
  f.setPointSizeF(9 * scale);
  sum_->setFont(f);
}

ViewNumbers AttributionView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, title_);
  if (shownResult_.get() == &result && showsDecoder()) {
    n.matrices.push_back(labelled("attribution", title_, decoderMatrix(shownDecoder_),
                                  layerRows(static_cast<int>(shownDecoder_.self.rows())),
                                  decoderColumns(static_cast<int>(shownDecoder_.self.cols()))));
    return n;
  }
  if (shownResult_.get() != &result || shown_.heads.size() == 0) return n;  // nothing attributed: no numbers
  n.matrices.push_back(labelled("attribution", title_, attributionMatrix(shown_),
                                layerRows(static_cast<int>(shown_.heads.rows())),
                                headColumns(static_cast<int>(shown_.heads.cols()))));
  return n;
}

}  // namespace attnlab::ui
