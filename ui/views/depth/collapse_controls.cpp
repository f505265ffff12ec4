#include "ui/views/depth/collapse_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <cmath>

#include "core/collapse/deep_stack.h"
#include "ui/plots/flow_layout.h"
#include "ui/views/depth/collapse_plotting.h"

namespace attnlab::ui {
namespace {

QSpinBox* spin(int lo, int hi, const QString& tip) {
  auto* s = new QSpinBox;
  s->setRange(lo, hi);
  s->setToolTip(tip);
  s->setKeyboardTracking(false);  // typing "128" runs once, not for 1, 12 and 128
  return s;
}

QComboBox* combo(const QStringList& items, const QString& tip) {
  auto* c = new QComboBox;
  c->addItems(items);
  c->setToolTip(tip);
  return c;
}

}  // namespace

CollapseControls::CollapseControls(QWidget* parent) : QWidget(parent) {
  depth_ = spin(1, 128, tr("Layers L of every stack (1–128)."));
  heads_ = spin(1, 64, tr("Attention heads per layer; must divide d<sub>model</sub>."));
  dModel_ = spin(1, 1024, tr("Width d of the token vectors."));
  tokens_ = spin(1, 512, tr("Number of tokens n of the random inputs."));
  seeds_ = spin(1, 64, tr("Runs per configuration: the line is their median, the band their min–max."));
  init_ = combo({"lecun", "xavier", "bert"},
                tr("Weights: LeCun N(0, 1/fan_in), Xavier N(0, 2/(fan_in+fan_out)) or BERT-like N(0, 0.02²)."));
  mlpGain_ = new QDoubleSpinBox;
  mlpGain_->setRange(0.01, 100);
  mlpGain_->setDecimals(2);
  mlpGain_->setSingleStep(0.5);
  mlpGain_->setKeyboardTracking(false);
  mlpGain_->setToolTip(
      tr("g: the MLP's output weights are drawn g times larger, so its Lipschitz constant grows "
         "g-fold. Whether an MLP slows the collapse depends on it."));
  norm_ = combo({"composite", "fro"}, tr("Norm of the residual: the authors' √(‖·‖₁‖·‖∞), or Frobenius."));
  input_ = combo({"random", "sentence"}, tr("Random N(0, 1) tokens, or the embeddings of the sentence typed above."));
  QStringList variants;
  for (const std::string& v : stackAttentionVariants()) variants << QString::fromStdString(v);
  variant_ = combo(variants, tr("Attention variant of every layer."));

  // Fields and stack toggles wrap onto more lines on a narrow view (a projector with the lesson open).
  auto* grid = new FlowLayout(nullptr, 12, 2);
  const std::vector<std::pair<QString, QWidget*>> fields{
      {tr("depth"), depth_}, {tr("heads"), heads_},      {tr("d<sub>model</sub>"), dModel_}, {tr("tokens"), tokens_},
      {tr("seeds"), seeds_}, {tr("init"), init_},        {tr("MLP gain"), mlpGain_},         {tr("norm"), norm_},
      {tr("input"), input_}, {tr("attention"), variant_}};
  for (const auto& [caption, field] : fields) grid->addLabelled(caption, field);
  auto* toggles = new FlowLayout(nullptr, 12, 2);
  for (StackConfig c : CollapseSettings::allStackConfigs()) {
    auto* box = new QCheckBox(QString::fromUtf8(displayName(c)));
    box->setToolTip(tr("Show the “%1” stack (%2).").arg(displayName(c), toString(c)));
    box->setStyleSheet(QString("QCheckBox { color: %1; font-weight: bold; }").arg(configColor(c).name()));
    toggles_[c] = box;
    toggles->addWidget(box);
    connect(box, &QCheckBox::toggled, this, &CollapseControls::readWidgets);
  }
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->addLayout(grid);
  layout->addLayout(toggles);

  for (QSpinBox* s : {depth_, heads_, dModel_, tokens_, seeds_})
    connect(s, qOverload<int>(&QSpinBox::valueChanged), this, &CollapseControls::readWidgets);
  connect(mlpGain_, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &CollapseControls::readWidgets);
  for (QComboBox* c : {init_, norm_, input_, variant_})
    connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this, &CollapseControls::readWidgets);
  setSettings(settings_);
}

void CollapseControls::setSettings(const CollapseSettings& s) {
  settings_ = s;
  updating_ = true;
  depth_->setValue(s.depth);
  heads_->setValue(s.heads);
  dModel_->setValue(s.dModel);
  tokens_->setValue(s.tokens);
  tokens_->setEnabled(s.input == CollapseInput::Random);
  seeds_->setValue(s.seeds);
  init_->setCurrentText(toString(s.init));
  mlpGain_->setValue(s.mlpGain);
  norm_->setCurrentText(toString(s.norm));
  input_->setCurrentText(toString(s.input));
  if (variant_->findText(QString::fromStdString(s.variant)) < 0) variant_->addItem(QString::fromStdString(s.variant));
  variant_->setCurrentText(QString::fromStdString(s.variant));
  for (auto& [c, box] : toggles_) box->setChecked(std::find(s.configs.begin(), s.configs.end(), c) != s.configs.end());
  updating_ = false;
}

void CollapseControls::setFontScale(double scale) {
  QFont f = font();
  f.setPointSizeF(9 * scale);
  for (QWidget* w : findChildren<QWidget*>()) w->setFont(f);
}

void CollapseControls::readWidgets() {
  if (updating_) return;
  CollapseSettings s = settings_;
  s.depth = depth_->value();
  s.heads = heads_->value();
  s.dModel = dModel_->value();
  s.tokens = tokens_->value();
  s.seeds = seeds_->value();
  s.init = parseInitScheme(init_->currentText().toStdString());
  // The box shows two decimals: keep a finer gain (from a session file) unless the box was moved.
  if (std::abs(mlpGain_->value() - s.mlpGain) > 0.005) s.mlpGain = mlpGain_->value();
  s.norm = parseResidualNorm(norm_->currentText().toStdString());
  s.input = parseCollapseInput(input_->currentText().toStdString());
  s.variant = variant_->currentText().toStdString();
  s.configs.clear();
  for (StackConfig c : CollapseSettings::allStackConfigs())
    if (toggles_.at(c)->isChecked()) s.configs.push_back(c);
  if (s.configs.empty()) {
    // At least one stack stays on: re-check the box just cleared.
    setSettings(settings_);
    return;
  }
  s.inspectDepth = std::min(s.inspectDepth, s.depth);
  settings_ = s;
  emit settingsEdited(s);
}

}  // namespace attnlab::ui
