#include "ui/shell/param_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFormLayout>
#include <QGroupBox>
#include <QMainWindow>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include "core/run/encdec_run.h"
#include "core/run/model_card.h"
#include "ui/shell/checkpoint_card.h"

namespace attnlab::ui {
namespace {

QSpinBox* spin(int lo, int hi, const QString& tip) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setToolTip(tip);
  s->setKeyboardTracking(true);  // every keystroke is an edit: the views follow while typing
  return s;
}

QComboBox* combo(const QStringList& items, const QString& tip) {
  auto* c = new QComboBox;
  c->addItems(items);
  c->setToolTip(tip);
  return c;
}

QCheckBox* check(const QString& text, const QString& tip) {
  auto* c = new QCheckBox(text);
  c->setToolTip(tip);
  return c;
}

}  // namespace

ParamPanel::ParamPanel(QWidget* parent) : QWidget(parent) {
  mode_ = combo({tr("1 · basic: softmax(X·Xᵀ)"), tr("2 · + queries, keys, values"), tr("3 · + scaling by √d"),
                 tr("4 · + multiple heads, Wo"), tr("5 · + causal mask"), tr("6 · full transformer block"),
                 tr("7 · + encoder–decoder")},
                tr("The rung of the teaching ladder: each adds one idea to the one before."));
  // (Rung 7's name stays as short as the others: a longer one widened the panel for every rung.)
  mode_->setItemData(static_cast<int>(Mode::EncDec),
                     tr("Rung 6's blocks as an encoder (the sentence, no mask) and a decoder (a typed target, causal) "
                        "joined by cross-attention, with the same random weights"),
                     Qt::ToolTipRole);
  dModel_ = spin(1, 1024, tr("Width of every token vector (d<sub>model</sub>)."));
  heads_ =
      spin(1, 64, tr("Number of attention heads; d<sub>model</sub> is cut into heads of d<sub>model</sub>/heads."));
  layers_ = spin(1, 64, tr("Number of stacked layers."));
  seed_ = spin(0, 999999, tr("Seed of the random weights and word embeddings: same seed, same model."));
  position_ = combo({tr("none"), tr("learned (random)"), tr("sinusoidal")},
                    tr("Position information added to the word vectors; without it attention cannot tell order."));
  scale_ = check(tr("scale scores by 1/√(head size)"),
                 tr("Divide dot products by √d<sub>head</sub> so softmax does not saturate."));
  causal_ = check(tr("causal mask"), tr("Each token attends only to itself and earlier tokens (for generation)."));
  skip_ = check(tr("residual (skip) connections"), tr("Add each sub-block's input to its output."));
  mlp_ = check(tr("MLP (4·d hidden)"), tr("The feed-forward sub-block after attention."));
  norm_ = combo({tr("pre-LN"), tr("post-LN"), tr("none")}, tr("Where LayerNorm sits in the block."));
  activation_ = combo({"GELU", "ReLU"}, tr("The MLP's non-linearity."));
  lowercase_ = check(tr("lower-case the sentence"), tr("Map words to lower case before embedding them."));
  layer_ = spin(0, 0, tr("The layer shown in the heatmap and head views."));
  head_ = spin(0, 0, tr("The head shown in the heatmap and Q/K/V views."));

  // Object names let tests and accessibility tools find each control.
  const std::pair<QWidget*, const char*> names[] = {
      {mode_, "mode"},           {dModel_, "dModel"},     {heads_, "heads"}, {layers_, "layers"},
      {seed_, "seed"},           {position_, "position"}, {scale_, "scale"}, {causal_, "causal"},
      {skip_, "skip"},           {mlp_, "mlp"},           {norm_, "norm"},   {activation_, "activation"},
      {lowercase_, "lowercase"}, {layer_, "layer"},       {head_, "head"}};
  for (const auto& [w, name] : names) w->setObjectName(name);

  auto* model = new QGroupBox(tr("Model"));
  model->setObjectName("builtinSettings");
  modelBox_ = model;
  auto* form = new QFormLayout(model);
  form->addRow(tr("Mode"), mode_);
  form->addRow(tr("d<sub>model</sub>"), dModel_);
  form->addRow(tr("Heads"), heads_);
  form->addRow(tr("Layers"), layers_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Position"), position_);
  form->addRow(scale_);
  form->addRow(causal_);
  form->addRow(skip_);
  form->addRow(mlp_);
  form->addRow(tr("LayerNorm"), norm_);
  form->addRow(tr("Activation"), activation_);
  form->addRow(lowercase_);
  auto* selection = new QGroupBox(tr("Selection"));
  selection->setObjectName("selectionBox");
  auto* sel = new QFormLayout(selection);
  sel->addRow(tr("Layer"), layer_);
  sel->addRow(tr("Head"), head_);
  card_ = new CheckpointCard;
  card_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(model);
  layout->addWidget(card_);
  layout->addWidget(selection);
  layout->addStretch(1);

  // Before changed(): the user's own choice of scaling and mask, and the mask carried from rung 5 to rung 6 (the full
  // block builds on the causal rung; it silently dropped the mask).
  connect(scale_, &QCheckBox::toggled, this, [this](bool on) { storedScale_ = on; });
  connect(causal_, &QCheckBox::toggled, this, [this](bool on) { storedCausal_ = on; });
  connect(mode_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (shownMode_ == static_cast<int>(Mode::Causal) && index > shownMode_) storedCausal_ = true;
    shownMode_ = index;
  });
  for (QSpinBox* s : {dModel_, heads_, layers_, seed_, layer_, head_})
    connect(s, &QSpinBox::valueChanged, this, &ParamPanel::changed);
  for (QComboBox* c : {mode_, position_, norm_, activation_})
    connect(c, &QComboBox::currentIndexChanged, this, &ParamPanel::changed);
  for (QCheckBox* c : {scale_, causal_, skip_, mlp_, lowercase_})
    connect(c, &QCheckBox::toggled, this, &ParamPanel::changed);
  setParams(Params{});
}

void ParamPanel::setParams(const Params& p) {
  builtin_ = p.modelDir.empty();
  const ModelConfig& m = p.model;
  const QSignalBlocker blockers[] = {QSignalBlocker(mode_),   QSignalBlocker(dModel_), QSignalBlocker(heads_),
                                     QSignalBlocker(layers_), QSignalBlocker(seed_),   QSignalBlocker(position_),
                                     QSignalBlocker(scale_),  QSignalBlocker(causal_), QSignalBlocker(skip_),
                                     QSignalBlocker(mlp_),    QSignalBlocker(norm_),   QSignalBlocker(activation_),
                                     QSignalBlocker(layer_),  QSignalBlocker(head_),   QSignalBlocker(lowercase_)};
  mode_->setCurrentIndex(static_cast<int>(m.mode));
  shownMode_ = static_cast<int>(m.mode);
  storedScale_ = m.scale;
  storedCausal_ = m.causal;
  dModel_->setMaximum(1024);
  heads_->setMaximum(64);
  layers_->setMaximum(64);
  dModel_->setValue(m.dModel);
  heads_->setValue(m.heads);
  layers_->setValue(m.layers);
  seed_->setValue(static_cast<int>(m.seed % 1000000));
  position_->setCurrentIndex(static_cast<int>(m.position));
  skip_->setChecked(m.skip);
  mlp_->setChecked(m.mlp);
  norm_->setCurrentIndex(static_cast<int>(m.norm));
  activation_->setCurrentIndex(static_cast<int>(m.activation));
  lowercase_->setChecked(p.lowercase);
  layer_->setMaximum(std::max(m.layers - 1, p.selection.layer));
  head_->setMaximum(std::max(m.heads - 1, p.selection.head));
  layer_->setValue(p.selection.layer);
  head_->setValue(p.selection.head);
  if (p.modelDir != paramsDir_) card_->setFailure({});  // another folder asked for: the failure was the last one's
  paramsDir_ = p.modelDir;
  if (!builtin_ && p.modelDir != cardDir_) {  // another checkpoint: its card comes with its first result
    cardModel_.reset();
    cardDir_.clear();
    card_->showLoading();
  }
  updateEnabled();
}

void ParamPanel::setModelShape(const ModelInfo& info) {
  const QSignalBlocker b1(layer_), b2(head_);
  layer_->setMaximum(std::max(0, info.layers - 1));
  head_->setMaximum(std::max(0, info.heads - 1));
}

void ParamPanel::showModel(const std::shared_ptr<const Model>& model, const std::string& modelDir) {
  if (!model || modelDir.empty() || builtin_) return;
  if (model != cardModel_.lock() || modelDir != cardDir_) {
    // Read once per opened model (a stat of each file, the safetensors headers already parsed).
    const ModelCard card = modelCard(*model, modelDir);
    card_->showCard(card, QString::fromStdString(card.name));
    cardModel_ = model;
    cardDir_ = modelDir;
    fitDock();  // the card's rows are filled now: the width they want is known
  } else {
    card_->refreshMemory();
  }
}

void ParamPanel::showFailedRun(const ComputeResult& failed, const ResultPtr& inForce) {
  const std::string& dir = failed.params.modelDir;
  // A failed run of the checkpoint the card shows (a selection, a text) changes nothing on it.
  if (builtin_ || dir.empty() || dir != paramsDir_ || dir == cardDir_) return;
  const QString folder = QString::fromStdString(dir).section('/', -1, -1, QString::SectionSkipEmpty);
  if (failed.textTooLong()) {
    card_->showNoCard(tr("“%1” is open; the text is longer than its %2 positions: its card comes with the first run "
                         "of a text that fits.")
                          .arg(folder)
                          .arg(failed.modelPositions));
    return;
  }
  QString failure = tr("Could not open “%1”: %2").arg(folder, failed.error);
  if (inForce && inForce->ok() && !inForce->params.modelDir.empty()) {
    showModel(wholeModel(*inForce->run), inForce->params.modelDir);
    failure += tr(" The model below stays in use.");
  } else {
    card_->showNoCard(tr("No checkpoint is open: the views show the built-in model."));
  }
  card_->setFailure(failure);
}

Params ParamPanel::applyTo(Params p) const {
  if (builtin_) {
    ModelConfig& m = p.model;
    m.mode = static_cast<Mode>(mode_->currentIndex());
    m.dModel = dModel_->value();
    m.heads = heads_->value();
    m.layers = layers_->value();
    m.seed = static_cast<uint64_t>(seed_->value());
    m.position = static_cast<PositionKind>(position_->currentIndex());
    m.scale = storedScale_;
    m.causal = storedCausal_;
    m.skip = skip_->isChecked();
    m.mlp = mlp_->isChecked();
    m.norm = static_cast<NormPlacement>(norm_->currentIndex());
    m.activation = static_cast<Activation>(activation_->currentIndex());
    p.lowercase = lowercase_->isChecked();
  }
  p.selection.layer = layer_->value();
  p.selection.head = head_->value();
  return p;
}

void ParamPanel::setModelCausal(bool causal) {
  modelCausal_ = causal;
  showLadderState();
}

void ParamPanel::showLadderState() {
  const QSignalBlocker b1(scale_), b2(causal_);
  const Mode m = static_cast<Mode>(mode_->currentIndex());
  if (!builtin_) {
    causal_->setChecked(modelCausal_);
    causal_->setToolTip(modelCausal_ ? tr("This checkpoint masks causally: each token sees itself and earlier tokens.")
                                     : tr("This checkpoint attends in both directions (no mask)."));
    return;
  }
  scale_->setChecked(m >= Mode::Scaled && storedScale_);
  scale_->setToolTip(m >= Mode::Scaled
                         ? tr("Divide dot products by √d_head so softmax does not saturate.")
                         : tr("Nothing is scaled below rung 3 (“+ scaling by √d”): pick rung 3 or later to choose."));
  // Rung 7 has its own masks: none in the encoder, causal in the decoder. The stored switch waits for rung 6.
  causal_->setChecked(m == Mode::Causal || (storedCausal_ && m != Mode::EncDec));
  causal_->setToolTip(m == Mode::Causal ? tr("Rung 5 is the causal mask: it is always on here.")
                      : m == Mode::EncDec
                          ? tr("Rung 7 sets the masks itself: the encoder reads the source both ways, the decoder "
                               "reads the target causally (and the whole source through cross-attention).")
                          : tr("Each token attends only to itself and earlier tokens (for generation)."));
}

void ParamPanel::changed() {
  updateEnabled();
  emit edited();
}

void ParamPanel::updateEnabled() {
  const Mode m = static_cast<Mode>(mode_->currentIndex());
  const bool builtin = builtin_;
  // A checkpoint has its own architecture and weights: the built-in model's settings go (the whole group box; hiding
  // its rows one by one was once followed by heap corruption at exit) and the checkpoint's card takes their place.
  modelBox_->setVisible(builtin);
  card_->setVisible(!builtin);
  if (builtin != fittedBuiltin_) fitDock();
  for (QWidget* w : std::initializer_list<QWidget*>{mode_, dModel_, layers_, seed_, position_, lowercase_})
    w->setEnabled(builtin);
  heads_->setEnabled(builtin && m >= Mode::Multihead);
  scale_->setEnabled(builtin && m >= Mode::Scaled);
  causal_->setEnabled(builtin && m != Mode::Causal && m != Mode::EncDec);
  showLadderState();
  for (QWidget* w : std::initializer_list<QWidget*>{skip_, mlp_, norm_, activation_})
    w->setEnabled(builtin && m >= Mode::Block);  // rung 7 is rung 6's blocks read as encoder and decoder
}

void ParamPanel::fitDock() {
  fittedBuiltin_ = builtin_;
  // After the layout has taken the new contents in; the scroll area's margin (24) is the window's own.
  QTimer::singleShot(0, this, [this] {
    auto* scroll = qobject_cast<QScrollArea*>(parentWidget() ? parentWidget()->parentWidget() : nullptr);
    auto* dock = scroll ? qobject_cast<QDockWidget*>(scroll->parentWidget()) : nullptr;
    auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
    if (!window) return;
    const QMargins m = layout()->contentsMargins();
    const int wanted = builtin_ ? sizeHint().width()
                                : std::max(card_->preferredWidth() + m.left() + m.right(),
                                           findChild<QGroupBox*>("selectionBox")->sizeHint().width());
    scroll->setMinimumWidth(wanted + 24);
    if (!dock->isFloating() && dock->isVisible()) window->resizeDocks({dock}, {wanted + 24}, Qt::Horizontal);
  });
}

}  // namespace attnlab::ui
