#include "ui/views/prediction/prediction_view.h"

#include <qcustomplot.h>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/base/errors.h"
#include "core/predict/run_comparison.h"
#include "core/run/pipeline.h"
#include "ui/plots/matrix_plot.h"
#include "ui/plots/panel_layout.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/prediction/prediction_controls.h"
#include "ui/views/prediction/prediction_position.h"
#include "ui/views/prediction/probability_text.h"
#include "ui/views/prediction/resample_field.h"
#include "ui/views/prediction/token_generator.h"

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

/// The attribution target of the settings (−1: the prediction), or −1 when it names no token (the
/// attribution view reports that).
int targetOf(const Model& m, const PredictionSettings& s) {
  if (s.target.empty()) return -1;
  try {
    return resolveToken(m, s.target);
  } catch (const InputError&) {
    return -1;
  }
}

/// The plain run to compare an ablated one with, its logits at `position` included: `cached` when it is the
/// model's on this text, else a forward pass without ablation.
PredictionView::PlainRun plainRunFor(const ResultPtr& r, int position, const PredictionView::PlainRun& cached,
                                     const RunControl& control) {
  const Model& m = *r->run->model;
  PredictionView::PlainRun plain =
      cached.model.lock() == r->run->model && cached.ids == r->run->text.ids
          ? cached
          : PredictionView::PlainRun{r->run->model, r->run->text.ids,
                                     m.forward(r->run->text, control).layers.back().residualOut, -1, Vec()};
  if (plain.position != position || plain.logits.size() == 0) {
    plain.position = position;
    plain.logits = rowLogits(*m.unembedding(), plain.finalStream.row(position).transpose());
  }
  return plain;
}

/// An encoder–decoder's decoder side: the logits its forward pass computed [n_tgt, target vocab] (lm_head with
/// Marian/BART's final_logits_bias or T5's d^-0.5 rescale, EncDecModel::logits), which the bars show as they are; null
/// for other models. The lens re-decodes the streams through the same step (EncDecModel::decoderUnembedding).
const Mat* runLogits(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  if (!run || !run->isDecoderSide() || !run->trace || run->trace->logits.rows() != r.trace().tokenCount())
    return nullptr;
  return &run->trace->logits;
}

PredictionView::Outcome computeOutcome(const ResultPtr& r, int position, const PredictionView::PlainRun& cached,
                                       const std::shared_ptr<const PositionReadout>& previous,
                                       const RunControl& control) {
  PredictionView::Outcome o;
  o.position = position;
  const Model& m = *r->run->model;
  const PredictionSettings& s = r->params.prediction;
  o.readout = std::make_shared<const PositionReadout>(
      previous ? readPosition(m, r->trace(), position, PredictionView::kTop, s.temperature, 1, *previous)
               : readPosition(m, r->trace(), position, PredictionView::kTop, s.temperature, 1));
  if (const Mat* logits = runLogits(*r)) {  // the decoder's bars: the run's own logits at the target position
    auto own = std::make_shared<PositionReadout>(*o.readout);
    own->logits = logits->row(position).transpose();
    requireFiniteLogits(own->logits);
    own->top = topTokens(m, own->logits, PredictionView::kTop, s.temperature);
    o.readout = std::move(own);
  }
  o.top = o.readout->top;
  o.lens = o.readout->lens;
  const std::vector<TokenScore> keeps = samplingKeeps(m, o.readout->logits, s.temperature, s.topK, s.topP);
  for (const TokenScore& t : o.top)
    o.kept.push_back(std::any_of(keeps.begin(), keeps.end(), [&](const TokenScore& k) { return k.id == t.id; }));
  control.checkpoint(0.2);
  if (r->run->encdec) {
    // An encoder–decoder's heads switched off (any of its three attentions): compared with one pass of both texts
    // without them (Model::forward cannot run a stack alone). Translation lengths: a pass is a few ms.
    const EncDecRun& run = *r->run->encdec;
    if (anyAblated(s) && runLogits(*r) && run.model->folder()) {  // logits: a folder's run (rung 7 has none)
      const EncDecTrace plain = run.model->folder()->model().forward(run.source.ids, run.target.ids);
      o.ablation =
          compareRuns(Vec(plain.logits.row(position).transpose()), o.readout->logits, targetOf(m, s), s.temperature);
    }
  } else if (s.ablate.empty()) {  // this is the plain run: its logits are kept for the next toggle
    o.plain = {r->run->model, r->run->text.ids, r->trace().layers.back().residualOut, position, o.readout->logits};
  } else {  // the trace is the ablated run: compare with the plain model's
    o.plain = plainRunFor(r, position, cached, control.part(0.2, 0.5));
    o.ablation = compareRuns(o.plain.logits, o.readout->logits, targetOf(m, s), s.temperature);
  }
  return o;
}

}  // namespace

PredictionView::PredictionView(QWidget* parent) : TraceView(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel;
  title_->setAlignment(Qt::AlignCenter);
  QFont f = title_->font();
  f.setBold(true);
  title_->setFont(f);
  layout->addWidget(title_);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setTextFormat(Qt::RichText);
  connect(message_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (!latest_ || link != "decoder") return;
    Params p = latest_->params;  // an encoder–decoder's encoder shown: show its decoder (selection.stack)
    p.selection.stack = "decoder";
    emit paramsRequested(p);
  });
  message_->hide();
  message_->setAlignment(Qt::AlignTop | Qt::AlignLeft);  // under the title (why nothing is drawn), the space below it
  layout->addWidget(message_, 1);
  controls_ = new PredictionControls;
  controls_->setProperty(kScreenOnlyProperty, true);  // a figure shows the prediction, not the buttons
  layout->addWidget(controls_);
  ablation_ = new QLabel;
  ablation_->setWordWrap(true);
  ablation_->setTextFormat(Qt::RichText);
  ablation_->hide();
  layout->addWidget(ablation_);
  resample_ = new ResampleField;  // below the ablation line that offers it; resample mode only
  resample_->setProperty(kScreenOnlyProperty, true);
  resample_->hide();
  layout->addWidget(resample_);
  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->hide();
  status_->setProperty(kScreenOnlyProperty, true);
  layout->addWidget(status_);
  auto* top = new PanelLayout(320, 220);  // the bars beside the lens list, or above it when narrow
  bars_ = new QCustomPlot;
  bars_->setMinimumHeight(220);
  barItem_ = new QCPBars(bars_->yAxis, bars_->xAxis);  // horizontal: keys on y, probabilities on x
  barItem_->setBrush(QColor(0x44, 0x77, 0xaa));
  barItem_->setPen(Qt::NoPen);
  barItem_->setName(tr("kept by sampling"));
  droppedItem_ = new QCPBars(bars_->yAxis, bars_->xAxis);
  droppedItem_->setBrush(QColor(0xbb, 0xbb, 0xbb));
  droppedItem_->setPen(Qt::NoPen);
  droppedItem_->setName(tr("dropped by top-k / top-p"));
  bars_->xAxis->setLabel(tr("probability"));
  bars_->xAxis->setRange(0, 1);
  bars_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
  bars_->yAxis->setRangeReversed(true);
  top->addWidget(bars_);
  connect(bars_, &QCustomPlot::afterLayout, this, &PredictionView::fitBarLabels);
  lensList_ = new QLabel;
  lensList_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  lensList_->setTextFormat(Qt::RichText);
  top->addWidget(lensList_);
  layout->addLayout(top, 2);
  lens_ = new MatrixPlot;
  lens_->setRangeMode(MatrixPlot::Range::UnitInterval);
  lens_->setAxisTitles(tr("layer (stream decoded)"), tr("position"));
  layout->addWidget(lens_, 3);
  connect(lens_, &QCustomPlot::afterLayout, this, &PredictionView::fitLensHeight);
  job_ = new BackgroundJob(this);
  gridJob_ = new BackgroundJob(this);
  generator_ = new TokenGenerator(this);
  connect(controls_, &PredictionControls::settingsEdited, this, [this](const PredictionSettings& s) {
    if (!latest_) return;
    Params p = latest_->params;
    p.prediction = s;
    emit paramsRequested(p);
  });
  connect(controls_, &PredictionControls::generateRequested, this, &PredictionView::generate);
  connect(controls_, &PredictionControls::stopRequested, this, &PredictionView::stopGenerating);
  connect(generator_, &TokenGenerator::runningChanged, controls_, &PredictionControls::setGenerating);
  connect(generator_, &TokenGenerator::tokenMade, this, &PredictionView::onTokenMade);
  connect(generator_, &TokenGenerator::failed, this, [this](const QString& e) {
    status_->setText(tr("Generation stopped: %1").arg(e));
    status_->show();
  });
  connect(ablation_, &QLabel::linkActivated, this, [this](const QString& link) {
    if (!latest_) return;
    Params p = latest_->params;
    if (link == "clear") {  // every attention's (an encoder–decoder has three lists)
      p.prediction.ablate.clear();
      p.prediction.ablateEncoder.clear();
      p.prediction.ablateCross.clear();
    }
    if (link == "zero") p.prediction.ablationMode = AblationMode::Zero;
    if (link == "mean") p.prediction.ablationMode = AblationMode::Mean;
    if (link == "resample") {  // the field shows at once: an empty text is refused by the run, and typed here
      p.prediction.ablationMode = AblationMode::Resample;
      resample_->show();
      resample_->edit()->setFocus();
    }
    emit paramsRequested(p);
  });
  connect(resample_, &ResampleField::edited, this, [this](const QString& text) {
    if (!latest_) return;
    Params p = latest_->params;  // the window takes over only what changed (the text, and the mode if it was another)
    p.prediction.ablationMode = AblationMode::Resample;
    p.prediction.resampleText = text.toStdString();
    emit paramsRequested(p);
  });
  connect(lens_, &MatrixPlot::cellHovered, this, [this](int row, int col, double) {
    if (row < 0 || !shown_ || row >= outcome_.grid.topId.rows() || col >= outcome_.grid.topId.cols()) return;
    lens_->setToolTip(lensTooltip(row, col));
  });
}

void PredictionView::showMessage(const QString& text) {
  message_->setText(text);
  message_->show();
  bars_->setVisible(false);
  lens_->setVisible(false);
  lensList_->clear();
  lensList_->setVisible(false);  // an empty panel would keep its share of the page above the message
}

void PredictionView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  latest_ = result;
  controls_->setSettings(result->params.prediction);
  showResampleField(result->params.prediction, {});
  // Typing over the sentence while tokens are being appended: the user's text wins.
  if (generating() && result->params.sentence.rfind(generationBase_, 0) != 0) stopGenerating();
  // The generation's line ("Step 1: “alues”") is about its model and text: gone once either is another (issue 31).
  if (!generating() && !status_->isHidden() &&
      (result->modelIdentity() != generationModel_ || result->params.sentence.rfind(generationBase_, 0) != 0)) {
    status_->clear();
    status_->hide();
  }
  outcome_ = {};
  if (!result->run->model || !result->run->model->unembedding()) {
    job_->cancel();
    shown_ = result;
    title_->setText(tr("Prediction") + stackTag(*result));
    const bool encoder = !stackTag(*result).isEmpty();  // an encoder–decoder's encoder (issue 33)
    const EncDecRun* run = encDecRunOf(*result);
    const QString why =
        run && !run->model->hasOutputHead()  // the built-in rung 7: neither stack predicts
            ? tr("%1 predicts nothing: %2.")
                  .arg(QString::fromStdString(run->model->name()).toHtmlEscaped(),
                       QString::fromStdString(run->model->noOutputHeadReason()).toHtmlEscaped())
            : encoder
                  ? tr("%1: the encoder predicts no token — it reads the source for the decoder's cross-attention. The "
                       "decoder predicts the next target token: <a href='decoder'>show the decoder</a>.")
                        .arg(QString::fromStdString(result->run->info.name).toHtmlEscaped())
                  : tr("%1 has no vocabulary to predict: open GPT-2, a Llama / Qwen / Mistral / Gemma "
                       "checkpoint, or a model trained in the Training view.")
                        .arg(QString::fromStdString(result->run->info.name).toHtmlEscaped());
    controls_->setGenerateEnabled(false, why);
    showMessage(why);
    return;
  }
  if (result->run->encdec)  // the target grows in the target bar, which runs the decoder on its cache
    controls_->setGenerateEnabled(false, tr("The target bar's Next token and Translate append the decoder's tokens "
                                            "to the target."));
  else if (predictsMaskedToken(*result->run->model))
    controls_->setGenerateEnabled(false, tr("%1 is a masked language model: it fills in a [MASK], it does not "
                                            "write the next token")
                                             .arg(QString::fromStdString(result->run->info.name)));
  else
    controls_->setGenerateEnabled(true);
  // A plain run's final stream is what switching heads off is compared with: kept, so the first toggle on
  // this sentence costs no second forward pass.
  if (result->params.prediction.ablate.empty() && !result->run->encdec)
    plain_ = {result->run->model, result->run->text.ids, result->trace().layers.back().residualOut, -1, Vec()};
  const ResultPtr r = result;
  const int position = predictionPosition(*r);
  gridJob_->cancel();
  // The bars and the lens column first (one product of layers + 1 rows), then the grid: (layers + 1) × 48
  // rows, most of a second on GPT-2 small, drawn when it is ready.
  std::shared_ptr<const PositionReadout> previous = readoutModel_.lock() == r->run->model ? readout_ : nullptr;
  job_->run<Outcome>(
      [r, position, cached = plain_, previous](const RunControl& control) {
        return computeOutcome(r, position, cached, previous, control);
      },
      [this, r](const Outcome& o) {
        plain_ = o.plain;
        readout_ = o.readout;
        readoutModel_ = r->run->model;
        draw(r, o);
        const std::vector<int> positions = lensPositions(r->trace().tokenCount(), o.position);
        gridJob_->run<LensGrid>(
            [r, positions](const RunControl&) { return logitLensGrid(*r->run->model, r->trace(), positions); },
            [this, r](const LensGrid& g) { drawGrid(r, g); },
            [this](const QString& e) { showMessage(e.toHtmlEscaped()); });
      },
      [this](const QString& e) { showMessage(e.toHtmlEscaped()); });
}

void PredictionView::showResampleField(const PredictionSettings& s, const QString& problem) {
  if (!resample_->edit()->hasFocus())  // while the user types, the field holds the newest text
    resample_->setText(QString::fromStdString(s.resampleText));
  resample_->setProblem(problem);
  resample_->setVisible(s.ablationMode == AblationMode::Resample && !s.ablate.empty());
}

void PredictionView::showFailure(const ResultPtr& result) {
  if (!result || result->ok() || result->cancelled) return;
  const PredictionSettings& s = result->params.prediction;
  if (s.ablationMode != AblationMode::Resample || s.ablate.empty()) return;  // not this view's field: the status bar
  showResampleField(s, tr("Not run: %1. The views show the last run that worked.").arg(result->error));
}

QString PredictionView::resampleProblem() const { return resample_->isHidden() ? QString() : resample_->problem(); }

bool PredictionView::generating() const { return generator_->running(); }

void PredictionView::generate(int steps) {
  const ResultPtr r = latest_;
  if (!r || !r->ok() || !r->run->model || !r->run->model->unembedding()) {
    status_->setText(tr("Nothing to generate with: the model has no vocabulary to predict."));
    status_->show();
    generationModel_.clear();
    return;
  }
  if (r->run->encdec) {  // Model::forward cannot run one of its stacks alone
    status_->setText(tr("An encoder–decoder's target grows in the target bar: Next token and Translate."));
    status_->show();
    generationModel_.clear();
    return;
  }
  const PredictionSettings& s = r->params.prediction;
  TokenGenerator::Request q;
  q.model = r->run->model;
  q.promptIds = r->run->text.ids;
  q.pieceStyle = r->run->info.pieceStyle;
  q.steps = steps;
  q.options.greedy = s.greedy;
  q.options.temperature = s.temperature;
  q.options.topK = s.topK;
  q.options.topP = s.topP;
  q.options.seed = s.seed;
  q.ablation = r->run->intervention;  // the shown run's ablation; resample: its run of the resample text, kept alive
  q.resampleRun = r->run->resampleRun;
  if (q.pieceStyle.empty())
    for (std::size_t i = 0; i < r->run->text.ids.size() && i < r->run->text.tokens.size(); ++i)
      if (r->run->text.tokens[i].byteEnd > r->run->text.tokens[i].byteBegin)
        q.promptWords[r->run->text.ids[i]] = r->run->text.tokens[i].text;
  generationBase_ = r->params.sentence;
  generationModel_ = r->modelIdentity();
  generationNote_.clear();
  generationLimit_ = 0;
  if (needsResampleRun(q.ablation) && q.resampleRun) {
    generationLimit_ = q.resampleRun->tokenCount();
    // Position i takes the heads' outputs at position i of the resample text: the grown sentence must stay within it.
    const int length = q.resampleRun->tokenCount(), room = length - static_cast<int>(q.promptIds.size());
    if (room <= 0) {
      status_->setText(tr("Not generated: the resample text has %1 tokens and the sentence as many; each new token "
                          "needs the resample text's heads at its position. Make the resample text longer, or use "
                          "zero or mean ablation.")
                           .arg(length));
      status_->show();
      return;
    }
    if (room < steps) {
      q.steps = room;
      generationNote_ = tr(" — %1 of the %2 tokens asked: the resample text has %3 tokens, and a longer sentence needs "
                           "a longer resample text")
                            .arg(room)
                            .arg(steps)
                            .arg(length);
    }
  }
  status_->setText((s.ablate.empty() ? tr("Generating %1 token(s)…").arg(q.steps)
                                     : tr("Generating %1 token(s) with the ablated model (no key/value cache: "
                                          "each step recomputes the sentence)…")
                                           .arg(q.steps)) +
                   generationNote_);
  status_->show();
  generator_->start(q);
}

void PredictionView::stopGenerating() { generator_->stop(); }

void PredictionView::onTokenMade(int step, const QString& piece, double prob, const QString& appended) {
  if (!latest_) {
    status_->setText(tr("Step %1: “%2” (p %3)").arg(step).arg(piece).arg(probabilityText(prob)) + generationNote_);
    return;
  }
  Params p = latest_->params;  // the newest shown parameters: only the sentence is edited
  p.sentence = generationBase_ + appended.toStdString();
  // Resample ablation: the grown sentence, read again by the tokenizer, may have more tokens than prompt + steps (a
  // piece that splits differently): past the resample text's length the next run would be refused.
  if (generationLimit_ > 0 && latest_->run && latest_->run->model) {
    const Model& m = *latest_->run->model;
    int n = 0;
    try {
      n = static_cast<int>(
          keepLastTokens(m.tokenize(p.sentence), p.keepLastTokens, m.info().maxTokens, m).tokens.size());
    } catch (const InputError&) {
      n = 0;  // the run will say what is wrong with the text
    }
    if (n > generationLimit_) {
      stopGenerating();
      status_->setText(tr("Stopped before step %1: the sentence would have %2 tokens, more than the resample text's %3 "
                          "(the new piece splits into more tokens when the text is read again). A longer sentence "
                          "needs a longer resample text.")
                           .arg(step)
                           .arg(n)
                           .arg(generationLimit_));
      return;
    }
  }
  status_->setText(tr("Step %1: “%2” (p %3)").arg(step).arg(piece).arg(probabilityText(prob)) + generationNote_);
  emit paramsRequested(p);
}

QString PredictionView::lensTooltip(int row, int col) const {
  // The top 5 of one stream, decoded on hover: one row of vocab·d multiply-adds (≈ 1 ms for GPT-2 small).
  const Trace& t = shown_->trace();
  const int position = outcome_.grid.positions[static_cast<std::size_t>(col)];
  const Mat& stream = t.layerInput(row);
  const Model& m = *shown_->run->model;
  const Vec logits = rowLogits(*m.unembedding(), stream.row(position).transpose());
  QString text =
      tr("%1 at position %2 (%3):").arg(layerLabel(row)).arg(position).arg(shown_->tokenLabels().value(position));
  for (const TokenScore& s : topTokens(m, logits, 5, shown_->params.prediction.temperature))
    text += QString("\n  %1  %2").arg(shown_->idLabel(s.id)).arg(probabilityText(s.prob));
  return text;
}

void PredictionView::drawBars(const ResultPtr& r, const Outcome& o) {
  QVector<double> keptKeys, keptValues, droppedKeys, droppedValues;
  auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(bars_->yAxis->ticker());
  ticker->clear();
  for (std::size_t i = 0; i < o.top.size(); ++i) {
    const bool kept = i >= o.kept.size() || o.kept[i];
    (kept ? keptKeys : droppedKeys) << static_cast<double>(i);
    (kept ? keptValues : droppedValues) << o.top[i].prob;
    ticker->addTick(static_cast<double>(i), QString("%1  %2 (logit %3)")
                                                .arg(r->idLabel(o.top[i].id))
                                                .arg(probabilityText(o.top[i].prob))
                                                .arg(o.top[i].logit, 0, 'f', 2));
  }
  barItem_->setData(keptKeys, keptValues);
  droppedItem_->setData(droppedKeys, droppedValues);
  bars_->yAxis->setRange(-0.6, static_cast<double>(o.top.size()) - 0.4);
  bars_->xAxis->setRange(0, std::max(0.05, o.top.empty() ? 1.0 : std::min(1.0, o.top.front().prob * 1.1)));
  bars_->replot();
}

QString PredictionView::ablationLine(const ResultPtr& r, const Outcome& o) const {
  if (!o.ablation) return {};
  const PredictionSettings& s = r->params.prediction;
  const auto joined = [](const std::vector<HeadRef>& list) {
    QStringList out;
    for (const std::string& h : formatHeadList(list)) out << QString::fromStdString(h);
    return out.join(", ");
  };
  QString heads = (s.ablate.size() == 1 ? tr("head ") : tr("heads ")) + joined(s.ablate);
  if (r->run->encdec) {  // each attention's heads, named
    QStringList parts;
    if (!s.ablateEncoder.empty()) parts << tr("encoder self-attention %1").arg(joined(s.ablateEncoder));
    if (!s.ablate.empty()) parts << tr("decoder self-attention %1").arg(joined(s.ablate));
    if (!s.ablateCross.empty()) parts << tr("cross-attention %1").arg(joined(s.ablateCross));
    heads = tr("heads of the ") + parts.join("; ");
  }
  const RunComparison& c = *o.ablation;
  const QString token = r->idLabel(c.target).toHtmlEscaped();
  QString how;
  if (s.ablationMode == AblationMode::Mean) {
    how = tr("output replaced by its mean over positions");
  } else if (s.ablationMode == AblationMode::Resample) {
    const QString text = QString::fromStdString(s.resampleText);
    how = tr("output replaced by its output on “%1”")
              .arg((text.size() > 40 ? text.left(39) + QStringLiteral("…") : text).toHtmlEscaped());
  } else {
    how = tr("output set to zero");
  }
  // The other modes, as links.
  QStringList modes;
  if (s.ablationMode != AblationMode::Zero) modes << tr("<a href='zero'>use zero</a>");
  if (s.ablationMode != AblationMode::Mean) modes << tr("<a href='mean'>use the mean</a>");
  if (s.ablationMode != AblationMode::Resample && !r->run->encdec)  // two texts: zero and mean only
    modes << tr("<a href='resample'>resample from another text</a>");
  // One multi-argument arg(): the resample text may hold "%2", which a chain of arg() calls would fill in.
  return tr("<b>Ablated</b> (%1): %2. p(“%3”) %4 → <b>%5</b>, KL(plain || ablated) %6 nats. "
            "%7 · <a href='clear'>switch all heads back on</a>")
      .arg(how, heads.toHtmlEscaped(), token, probabilityText(c.plainProb), probabilityText(c.changedProb),
           QString::number(c.kl, 'f', 3), modes.join(" · "));
}

void PredictionView::draw(const ResultPtr& r, const Outcome& o) {
  shown_ = r;
  outcome_ = o;
  message_->hide();
  bars_->setVisible(true);
  lens_->setVisible(true);
  lensList_->setVisible(true);
  const QStringList tokens = r->tokenLabels();
  const double t = r->params.prediction.temperature;
  const QString temperature = t == 1.0 ? QString() : tr(", temperature %1").arg(t);
  if (predictsMaskedToken(*r->run->model))
    title_->setText(
        tr("Masked token “%1” (position %2)%3").arg(tokens.value(o.position)).arg(o.position).arg(temperature));
  else
    title_->setText(tr("Next token after “%1” (position %2)%3%4")
                        .arg(tokens.value(o.position))
                        .arg(o.position)
                        .arg(temperature, stackTag(*r)));
  ablation_->setText(ablationLine(r, o));
  ablation_->setVisible(o.ablation.has_value());
  drawBars(r, o);
  QString list = tr("<b>Logit lens at position %1</b><br>").arg(o.position);
  for (const LensRow& row : o.lens)
    if (!row.top.empty())
      list += QString("%1: %2 <span style='color:gray'>%3</span><br>")
                  .arg(layerLabel(row.layer + 1))
                  .arg(r->idLabel(row.top.front().id).toHtmlEscaped())
                  .arg(probabilityText(row.top.front().prob));
  lensList_->setText(list);
}

void PredictionView::drawGrid(const ResultPtr& r, const LensGrid& g) {
  if (shown_ != r) return;  // the bars of a newer result are on screen
  outcome_.grid = g;
  const QStringList tokens = r->tokenLabels();
  QStringList rows, cols;
  for (int i = 0; i < g.topProb.rows(); ++i) rows << layerLabel(i);
  for (int p : g.positions) cols << tokens.value(p);
  lens_->setTitle(tr("Logit lens: probability of each stream's top token"));
  lens_->setMatrix(g.topProb.cast<float>(), rows, cols);
}

void PredictionView::setFontScale(double scale) {
  fontScale_ = scale;
  lens_->setFontScale(scale);
  QFont f = bars_->yAxis->tickLabelFont();
  f.setPointSizeF(9 * scale);
  bars_->yAxis->setTickLabelFont(f);
  bars_->xAxis->setTickLabelFont(f);
  f.setPointSizeF(8 * scale);  // "probability", read from the back of the room as the ticks are
  bars_->xAxis->setLabelFont(f);
  bars_->setMinimumHeight(220);  // fitBarLabels and fitLensHeight ask for more again if the labels need it
  lens_->setMinimumHeight(0);
  bars_->replot();
}

void PredictionView::fitLensHeight() {
  if (lens_->rows() == 0 || !lens_->isVisible()) return;
  const int line = QFontMetrics(lens_->yAxis->labelFont()).height();  // a point above the row labels' size
  const int need = static_cast<int>(std::ceil(std::min(lens_->rows(), 3) * line * 1.3)) + 2;
  const int have = lens_->axisRect()->height();
  if (have >= need) return;
  lens_->setMinimumHeight(lens_->height() + need - have);
  lens_->replot(QCustomPlot::rpQueuedReplot);
}

void PredictionView::fitBarLabels() {
  const int bars = static_cast<int>(outcome_.top.size());
  if (bars == 0 || !bars_->isVisible()) return;          // nothing drawn yet (the axis's default range is no bars)
  const int pitch = bars_->axisRect()->height() / bars;  // pixels from one bar's label to the next
  // As MatrixPlot does: shrink to 70 % of the scaled size, 7 pt at least, before taking more room.
  const double base = 9 * fontScale_, floor = std::max(7.0, 0.7 * base);
  QFont f = bars_->yAxis->tickLabelFont();
  // A label's line is as tall as its tallest glyph: a piece in another script (テキスト) is drawn in a fallback font
  // whose line is taller than the label font's own height().
  const QStringList labels = qSharedPointerDynamicCast<QCPAxisTickerText>(bars_->yAxis->ticker())->ticks().values();
  const auto lineHeight = [&labels](const QFont& font) {
    const QFontMetrics fm(font);
    int h = fm.height();
    for (const QString& label : labels) h = std::max(h, fm.size(0, label).height());
    return h;
  };
  double pt = base;
  f.setPointSizeF(pt);
  while (pt > floor && lineHeight(f) > pitch) {
    pt = std::max(floor, pt - 0.5);
    f.setPointSizeF(pt);
  }
  bool again = false;
  if (lineHeight(f) > pitch) {  // at the floor: a line per bar, the rest of the plot as it is
    const int need = bars * (lineHeight(f) + 1) + bars_->height() - bars_->axisRect()->height();
    if (need > bars_->minimumHeight()) {
      bars_->setMinimumHeight(need);
      again = true;
    }
  }
  if (f.pointSizeF() != bars_->yAxis->tickLabelFont().pointSizeF()) {
    bars_->yAxis->setTickLabelFont(f);
    again = true;
  }
  if (again) bars_->replot(QCustomPlot::rpQueuedReplot);
}

ViewNumbers PredictionView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, title_->text());
  const Outcome& o = outcome_;
  if (shown_.get() != &result || o.top.empty()) return n;  // nothing predicted (no vocabulary): no numbers
  MatD top(static_cast<Eigen::Index>(o.top.size()), 3);
  QStringList rows;
  for (std::size_t i = 0; i < o.top.size(); ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    top(row, 0) = o.top[i].logit;
    top(row, 1) = o.top[i].prob;
    top(row, 2) = i < o.kept.size() && o.kept[i] ? 1.0 : 0.0;
    rows << QString::fromStdString(o.top[i].token);
  }
  n.matrices.push_back(labelled("prediction", tr("Top %1 next tokens").arg(o.top.size()), top, rows,
                                {"logit", "prob", "kept_by_sampling"}));
  if (o.ablation) {
    MatD a(1, 4);
    a << o.ablation->target, o.ablation->plainProb, o.ablation->changedProb, o.ablation->kl;
    n.matrices.push_back(labelled("ablation", tr("The ablated heads' effect at the position"), a, {"target"},
                                  {"target_id", "plain_prob", "ablated_prob", "kl"}));
  }
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
