#include "ui/views/prediction/patching_view.h"

#include <QHBoxLayout>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>

#include "core/base/errors.h"
#include "ui/plots/colormaps.h"
#include "ui/plots/matrix_plot.h"
#include "ui/plots/panel_layout.h"
#include "ui/views/common/head_names.h"

namespace attnlab::ui {
namespace {

QStringList layerRows(int layers) {
  QStringList rows;
  for (int l = 0; l < layers; ++l) rows << QString("L%1").arg(l);
  return rows;
}

QStringList headColumns(int heads) {
  QStringList cols;
  for (int h = 0; h < heads; ++h) cols << QString("H%1").arg(h);
  return cols;
}

/// Row l of the residual map patches the stream entering layer l; the last row the final stream.
QString streamRow(int row, int layers) {
  if (row == layers) return QStringLiteral("final");
  return row == 0 ? QStringLiteral("emb→L0") : QStringLiteral("L%1→L%2").arg(row - 1).arg(row);
}

QStringList streamRows(int layers) {
  QStringList rows;
  for (int l = 0; l <= layers; ++l) rows << streamRow(l, layers);
  return rows;
}

bool sameModel(const std::weak_ptr<const Model>& a, const std::shared_ptr<const Model>& b) {
  return b && a.lock().get() == b.get();
}

int textTokens(const TokenizedText& t) { return static_cast<int>(t.tokens.size()); }

/// What the resample text must be as long as, in its messages.
const std::string kPatchTexts = "the clean and corrupted texts'";

/// How the ablated heads are switched off, for the summary: "zero", "mean", "resampled from “…”".
QString modeText(const std::string& mode, const std::string& resampleText) {
  if (resampleText.empty()) return QString::fromStdString(mode);
  const QString text = QString::fromStdString(resampleText);
  return QObject::tr("resampled from “%1”").arg((text.size() > 40 ? text.left(39) + "…" : text).toHtmlEscaped());
}

}  // namespace

PatchingView::PatchingView(QWidget* parent) : TraceView(parent) {
  auto* layout = new QVBoxLayout(this);
  controls_ = new PatchingControls;
  controls_->setProperty(kScreenOnlyProperty, true);
  layout->addWidget(controls_);
  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->hide();
  layout->addWidget(message_);
  headline_ = new QLabel;
  headline_->setWordWrap(true);
  headline_->setAlignment(Qt::AlignCenter);
  QFont bold = headline_->font();
  bold.setBold(true);
  headline_->setFont(bold);
  layout->addWidget(headline_);
  auto* plots = new PanelLayout(300, 260);  // heads beside the residual stream, or above it when narrow
  heads_ = new MatrixPlot;
  resid_ = new MatrixPlot;
  for (MatrixPlot* plot : {heads_, resid_}) {
    plot->setColorMap(ColorMap::Diverging);
    plot->setVisible(false);  // until the first map arrives: an empty plot would be one blank square
  }
  heads_->setAxisTitles(tr("layer"), tr("head"));
  resid_->setAxisTitles(tr("residual stream"), tr("position (corrupted text)"));
  plots->addWidget(heads_);
  plots->addWidget(resid_);
  layout->addLayout(plots, 1);
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  layout->addWidget(summary_);
  layout->addStretch(0);  // takes the room while the plots are hidden (before a map, or no vocabulary)
  job_ = new BackgroundJob(this);

  connect(job_, &BackgroundJob::busyChanged, controls_, &PatchingControls::setBusy);
  connect(job_, &BackgroundJob::progress, controls_, &PatchingControls::setProgress);
  connect(controls_, &PatchingControls::runRequested, this, &PatchingView::runRequested);
  connect(controls_, &PatchingControls::inputsTyped, this, &PatchingView::recheck);
  connect(controls_, &PatchingControls::mapChanged, this, [this] {
    if (!canPatch()) return;
    const Request r = requestOf(result_->params);
    showCost(r.in.corrupt, r.map);  // the hint counts the map chosen, not the previous one
    start(r);
  });
  connect(controls_, &PatchingControls::cancelRequested, this, [this] {
    job_->cancel();  // the inputs stay requested: a sentence edit does not restart them, Run does
    controls_->setStatus(hasMap()
                             ? tr("Cancelled: the map shows the previous inputs; press Run patching to compute these.")
                             : tr("Cancelled: no map; press Run patching to compute one."),
                         false);
  });
  connect(heads_, &MatrixPlot::cellClicked, this, [this](int row, int col, Qt::KeyboardModifiers) {
    if (row >= 0 && col >= 0 && row < shown_.map.heads.rows() && col < shown_.map.heads.cols())
      emit selectionRequested(row, col);
  });
  connect(heads_, &MatrixPlot::cellHovered, this, [this](int row, int col, double value) {
    if (row < 0 || row >= shown_.map.heads.rows() || col >= shown_.map.heads.cols()) return;
    heads_->setToolTip(tr("layer %1, head %2: effect %3 (its output copied from the clean run; click to select it)")
                           .arg(row)
                           .arg(col)
                           .arg(value, 0, 'f', 3));
  });
  connect(resid_, &MatrixPlot::cellHovered, this, [this](int row, int col, double value) {
    if (shown_.map.headPositions.size() > 0 && result_) {
      const int heads = result_->trace().headCount();
      if (row < 0 || row >= shown_.map.headPositions.rows() || col < 0 || col >= shown_.map.headPositions.cols())
        return;
      resid_->setToolTip(tr("layer %1, head %2 at position %3 (“%4”): effect %5")
                             .arg(row / heads)
                             .arg(row % heads)
                             .arg(col)
                             .arg(shown_.tokens.value(col))
                             .arg(value, 0, 'f', 3));
      return;
    }
    if (row < 0 || row >= shown_.map.resid.rows() || col >= shown_.map.resid.cols()) return;
    resid_->setToolTip(tr("stream %1 at position %2 (“%3”): effect %4")
                           .arg(streamRow(row, static_cast<int>(shown_.map.resid.rows()) - 1))
                           .arg(col)
                           .arg(shown_.tokens.value(col))
                           .arg(value, 0, 'f', 3));
  });
}

PatchingInputs PatchingView::inputsOf(const Params& p) {
  return {p.prediction.clean, p.prediction.corrupt, p.prediction.patchTarget, p.prediction.patchVersus};
}

PatchingView::Checked PatchingView::check(const Model& model, const PatchingInputs& in) {
  Checked c;
  c.clean = model.tokenize(in.clean);
  c.corrupt = model.tokenize(in.corrupt);
  const int n = textTokens(c.clean), m = textTokens(c.corrupt);
  if (n == 0 || m == 0) throw InputError(tr("the clean and the corrupted text must not be empty").toStdString());
  if (n != m)
    throw InputError(
        tr("clean has %1 tokens, corrupt has %2 — patching needs the same length").arg(n).arg(m).toStdString());
  if (in.clean == in.corrupt)
    throw InputError(tr("clean and corrupt are the same text: there is no difference to restore").toStdString());
  c.target = resolveToken(model, in.target);
  c.versus = resolveToken(model, in.versus);
  if (c.target == c.versus)
    throw InputError(tr("target and versus are the same token: their logit difference is always 0").toStdString());
  return c;
}

bool PatchingView::canPatch() const {
  // An encoder–decoder's decoder predicts, but patching re-runs one text (Model::forward), which it cannot.
  return result_ && result_->run->model && result_->run->model->unembedding() && !result_->run->encdec;
}

void PatchingView::showMessage(const QString& text) {
  message_->setText(text);
  message_->show();
  controls_->setVisible(false);  // a hidden field, not a dead one: nothing here can run on this model
  clearMap();
}

PatchingView::Request PatchingView::requestOf(const Params& p) const {
  Request r;
  r.in = inputsOf(p);
  r.map = controls_->map();
  r.ablate = p.prediction.ablate;
  r.mode = p.prediction.ablationMode;
  if (r.mode == AblationMode::Resample && !r.ablate.empty()) r.resampleText = p.prediction.resampleText;
  return r;
}

namespace {

/// The patched runs a map costs at most (those copying equal values are skipped).
long long mapRuns(PatchMap map, int layers, int heads, int n) {
  const long long h = static_cast<long long>(layers) * heads, r = static_cast<long long>(layers + 1) * n;
  switch (map) {
    case PatchMap::Heads:
      return h;
    case PatchMap::Positions:
      return r;
    case PatchMap::HeadPositions:
      return h * n;
    default:
      return h + r;
  }
}

}  // namespace

void PatchingView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  result_ = result;
  const Request in = requestOf(result->params);
  controls_->setInputs(in.in);
  if (!canPatch()) {
    job_->cancel();
    hasRequested_ = false;
    showMessage(result->run->encdec
                    ? tr("%1: patching runs one text again and again; an encoder–decoder's two texts cannot be "
                         "patched here.")
                          .arg(QString::fromStdString(result->run->info.name))
                    : tr("%1 has no vocabulary: there is no logit difference to patch. Open GPT-2, a Llama / Qwen / "
                         "Mistral / Gemma checkpoint, or a model trained in the Training view.")
                          .arg(QString::fromStdString(result->run->info.name)));
    return;
  }
  message_->hide();
  controls_->setVisible(true);
  showCost(in.in.corrupt, in.map);
  if (hasRequested_ && sameModel(requestedModel_, result->run->model) && requested_ == in) return;
  start(in);
}

void PatchingView::start(const Request& in) {
  const std::shared_ptr<const Model> model = result_->run->model;
  requested_ = in;
  requestedModel_ = model;
  hasRequested_ = true;
  Checked c;
  try {
    c = check(*model, in.in);
    // Resample ablation: every run's heads take the resample text's outputs position by position (its run is made
    // with the map; a text that cannot stand in is refused here, with the inputs).
    if (in.mode == AblationMode::Resample && !in.ablate.empty())
      resampleTokens(*model, in.resampleText, textTokens(c.clean), 0, kPatchTexts);
  } catch (const std::exception& e) {
    job_->cancel();
    // The map on screen was computed for other inputs (another model, other texts): it no longer applies.
    const bool cleared = clearMap();
    controls_->setStatus(cleared ? tr("%1. The map was cleared: it belonged to %2 and does not apply here.")
                                       .arg(QString::fromUtf8(e.what()), shownFor_)
                                 : QString::fromUtf8(e.what()),
                         true);
    return;
  }
  // A map of another model is cleared at once; one of this model with other inputs stays, marked, until the new one
  // replaces it.
  if (!shown_.model.expired() && !sameModel(shown_.model, model))
    clearMap();
  else if (hasMap() && !(shown_.in == in))
    summary_->setText(tr("<b>Stale:</b> these maps are for the previous inputs; the new ones are being computed."));
  controls_->setStatus(tr("clean and corrupt: %1 tokens each · computing…").arg(textTokens(c.clean)), false);
  ++runsStarted_;
  const std::string style = result_->run->info.pieceStyle;
  job_->run<Computed>(
      [model, c, in, style](const RunControl& control) {
        Computed out;
        PatchingOptions options;
        options.map = in.map;
        options.ablation.ablate = in.ablate;
        options.ablation.mode = in.mode;
        std::shared_ptr<const Trace> resample;  // the resample text's run, alive while the map is made
        if (in.mode == AblationMode::Resample && !in.ablate.empty()) {
          resample = resampleRunFor(*model, in.resampleText, textTokens(c.clean), 0, {}, nullptr, kPatchTexts);
          options.ablation.resample = resample.get();
        }
        out.map = activationPatching(*model, c.clean, c.corrupt, c.target, c.versus, control, options);
        out.in = in;
        out.model = model;
        out.modelName = QString::fromStdString(model->info().name);
        // Word-level vocabularies (the trained tiny models) give each sentence's words their own symbols
        // ("#37"): they are labelled with the words.
        const bool words = style.empty();
        std::map<int, std::string> wordOf;
        for (std::size_t i = 0; i < c.corrupt.tokens.size(); ++i) {
          const std::string piece = i < c.corrupt.ids.size() ? model->vocabularyPiece(c.corrupt.ids[i]) : "";
          const std::string raw = piece.empty() || words ? c.corrupt.tokens[i].text : piece;
          out.tokens << pieceLabel(raw, style);
          out.rawTokens << QString::fromStdString(raw);
          if (words && i < c.corrupt.ids.size()) wordOf[c.corrupt.ids[i]] = raw;
        }
        for (std::size_t i = 0; words && i < c.clean.tokens.size() && i < c.clean.ids.size(); ++i)
          wordOf[c.clean.ids[i]] = c.clean.tokens[i].text;
        const auto label = [&](int id) {
          const auto w = wordOf.find(id);
          return w != wordOf.end() ? QString::fromStdString(w->second) : pieceLabel(model->vocabularyPiece(id), style);
        };
        out.target = label(c.target);
        out.versus = label(c.versus);
        return out;
      },
      [this](const Computed& out) { draw(out); },
      [this](const QString& e) {
        clearMap();
        controls_->setStatus(tr("Cannot patch this model: %1").arg(e), true);
      });
}

bool PatchingView::clearMap() {
  const bool had = heads_->isVisible() || resid_->isVisible() || hasMap();
  shown_ = {};
  heads_->setVisible(false);
  resid_->setVisible(false);
  headline_->clear();
  summary_->clear();
  return had;
}

QStringList PatchingView::headPositionRows(int layers, int heads) {
  QStringList rows;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) rows << headLabel(l, h);
  return rows;
}

QString PatchingView::summary() const { return summary_->text(); }

void PatchingView::draw(const Computed& c) {
  shown_ = c;
  shownFor_ = c.modelName;
  const PatchingResult& m = c.map;
  const bool headPositions = m.headPositions.size() > 0;
  heads_->setVisible(m.heads.size() > 0);
  resid_->setVisible(m.resid.size() > 0 || headPositions);
  const int layers = static_cast<int>(m.heads.size() > 0 ? m.heads.rows() : headPositions ? 0 : m.resid.rows() - 1);
  // One scale for the maps, symmetric about 0 and never narrower than ±1 (full restoration).
  double reach = 1.0;
  for (const MatD* x : {&m.heads, &m.resid, &m.headPositions})
    if (x->size() > 0) reach = std::max(reach, x->cwiseAbs().maxCoeff());
  for (MatrixPlot* plot : {heads_, resid_}) plot->setFixedRange(-reach, reach);
  if (m.heads.size() > 0) {
    heads_->setTitle(tr("Heads: each head's output patched"));
    heads_->setMatrix(m.heads.cast<float>(), layerRows(layers), headColumns(static_cast<int>(m.heads.cols())));
  }
  if (headPositions) {
    const int heads = result_ ? result_->trace().headCount() : 1;
    resid_->setAxisTitles(tr("head"), tr("position (corrupted text)"));
    resid_->setTitle(tr("Head × position: one head's output patched at one position"));
    resid_->setMatrix(m.headPositions.cast<float>(),
                      headPositionRows(static_cast<int>(m.headPositions.rows()) / heads, heads), c.tokens);
  } else if (m.resid.size() > 0) {
    resid_->setAxisTitles(tr("residual stream"), tr("position (corrupted text)"));
    resid_->setTitle(tr("Residual stream: one position patched"));
    resid_->setMatrix(m.resid.cast<float>(), streamRows(static_cast<int>(m.resid.rows()) - 1), c.tokens);
  }
  headline_->setText(
      tr("Patching “%1” into “%2”: logit(“%3”) − logit(“%4”) at the last token")
          .arg(QString::fromStdString(c.in.in.clean), QString::fromStdString(c.in.in.corrupt), c.target, c.versus));
  QString text = tr("clean_diff %1, corrupt_diff %2; effect = (patched − corrupt) / (clean − corrupt) of "
                    "logit(target) − logit(versus): 1 restores the clean run, 0 changes nothing.")
                     .arg(m.cleanDiff, 0, 'f', 3)
                     .arg(m.corruptDiff, 0, 'f', 3);
  if (!c.in.ablate.empty()) {
    QStringList heads;
    for (const std::string& h : formatHeadList(c.in.ablate)) heads << QString::fromStdString(h);
    text += tr(" <b>Patched on top of the ablations in force:</b> heads %1 (%2) are switched off in the clean, the "
               "corrupted and every patched run.")
                .arg(heads.join(", "), modeText(ablationModeName(c.in.mode), c.in.resampleText));
  }
  if (m.skipped > 0)
    text += tr(" %1 of %2 patches copy values equal to the corrupted run's (the texts agree before position %3): "
               "effect 0, not run.")
                .arg(m.skipped)
                .arg(m.skipped + m.runs)
                .arg(m.firstDifference);
  if (!m.warning.empty())
    text += QStringLiteral(" <span style=\"color:#c0392b\"><b>%1</b></span>")
                .arg(tr("Warning: clean − corrupt is only %1 (below %2): the effects divide by it and mean little.")
                         .arg(m.cleanDiff - m.corruptDiff, 0, 'g', 3)
                         .arg(kMinPatchingSpan));
  summary_->setText(text);
  controls_->setStatus(tr("clean and corrupt: %1 tokens each").arg(c.tokens.size()), false);
}

void PatchingView::showCost(const std::string& corrupt, PatchMap map) {
  // Counted on the text in the field, typed or applied: a count of the previous text stayed (issue 31).
  const int layers = result_->trace().layerCount(), heads = result_->trace().headCount();
  const int n = std::max(0, textTokens(result_->run->model->tokenize(corrupt)));
  controls_->setHint(tr("Costs up to %1 patched runs of the corrupted text (heads: layers·heads = %2, positions: "
                        "(layers + 1)·n = %3, head × position: layers·heads·n = %4); patches that copy equal values "
                        "(before the first differing token) cost nothing. The map does not follow the sentence above: "
                        "it is recomputed when the model, these fields or the heads switched off change, or on Run.")
                         .arg(mapRuns(map, layers, heads, n))
                         .arg(mapRuns(PatchMap::Heads, layers, heads, n))
                         .arg(mapRuns(PatchMap::Positions, layers, heads, n))
                         .arg(mapRuns(PatchMap::HeadPositions, layers, heads, n)));
}

void PatchingView::recheck() {
  if (!canPatch()) return;
  showCost(controls_->inputs().corrupt, controls_->map());
  try {
    const Checked c = check(*result_->run->model, controls_->inputs());
    controls_->setStatus(tr("clean and corrupt: %1 tokens each").arg(textTokens(c.clean)), false);
  } catch (const std::exception& e) {
    controls_->setStatus(QString::fromUtf8(e.what()), true);
  }
}

void PatchingView::runRequested() {
  if (!canPatch()) return;
  const PatchingInputs in = controls_->inputs();
  try {
    check(*result_->run->model, in);
  } catch (const std::exception& e) {
    controls_->setStatus(QString::fromUtf8(e.what()), true);  // refused: the parameters stay as they are
    return;
  }
  if (in == inputsOf(result_->params)) {
    start(requestOf(result_->params));  // the same inputs again: Run recomputes them
    return;
  }
  Params p = result_->params;
  p.prediction.clean = in.clean;
  p.prediction.corrupt = in.corrupt;
  p.prediction.patchTarget = in.target;
  p.prediction.patchVersus = in.versus;
  emit paramsRequested(p);
}

void PatchingView::setFontScale(double scale) {
  heads_->setFontScale(scale);
  resid_->setFontScale(scale);
  controls_->setFontScale(scale);
  for (QLabel* l : {headline_, summary_, message_}) {
    QFont f = l->font();
    f.setPointSizeF(9 * scale);
    l->setFont(f);
  }
}

ViewNumbers PatchingView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, headline_->text().isEmpty() ? displayName() : headline_->text());
  // The map belongs to the result when it was computed for the result's model, patching inputs and ablations (the
  // sentence does not matter); otherwise, or before any map, there are no numbers.
  if (!result.ok() || !hasMap() || !sameModel(shown_.model, result.run->model) ||
      !shown_.in.sameInputs(requestOf(result.params)))
    return n;
  const PatchingResult& m = shown_.map;
  if (m.heads.size() > 0)
    n.matrices.push_back(labelled("patching_heads", tr("Activation patching: effect per head"), m.heads,
                                  layerRows(static_cast<int>(m.heads.rows())),
                                  headColumns(static_cast<int>(m.heads.cols()))));
  if (m.resid.size() > 0)
    n.matrices.push_back(labelled("patching_resid", tr("Activation patching: effect per residual stream and position"),
                                  m.resid, streamRows(static_cast<int>(m.resid.rows()) - 1), shown_.rawTokens));
  if (m.headPositions.size() > 0) {
    const int heads = result.trace().headCount();
    n.matrices.push_back(
        labelled("patching_head_positions", tr("Activation patching: effect per head and position"), m.headPositions,
                 headPositionRows(static_cast<int>(m.headPositions.rows()) / heads, heads), shown_.rawTokens));
  }
  return n;
}

}  // namespace attnlab::ui
