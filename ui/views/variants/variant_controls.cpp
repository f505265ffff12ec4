#include "ui/views/variants/variant_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "core/model/model_config.h"
#include "ui/plots/flow_layout.h"
#include "ui/plots/panel_layout.h"

namespace attnlab::ui {
namespace {

QWidget* labelled(const QString& text, QWidget* w, const QString& tip, QWidget* extra = nullptr) {
  auto* box = new QWidget;
  auto* l = new QHBoxLayout(box);
  l->setContentsMargins(0, 0, 0, 0);
  l->setSpacing(4);
  auto* label = new QLabel(text);
  label->setToolTip(tip);
  w->setToolTip(tip);
  l->addWidget(label);
  l->addWidget(w);
  if (extra) l->addWidget(extra);
  return box;
}

int log2Index(int m) { return static_cast<int>(std::lround(std::log2(std::max(1, m)))); }

}  // namespace

VariantControls::VariantControls(QWidget* parent) : QWidget(parent) { buildRows(); }

void VariantControls::buildRows() {
  // Two rows that wrap (FlowLayout) when the view is narrow: the variants' check boxes, then their settings.
  auto* rows = new QVBoxLayout(this);
  rows->setContentsMargins(4, 2, 4, 2);
  rows->setSpacing(2);
  auto* names = new FlowLayout(nullptr, 8, 2);
  auto* grid = new FlowLayout(nullptr, 12, 2);
  names->addWidget(new QLabel(tr("Variants:")));
  for (const std::string& n : variantNames()) {
    auto* box = new QCheckBox(QString::fromStdString(n));
    box->setToolTip(tr("Show the %1 variant as a tile.").arg(QString::fromStdString(n)));
    names->addWidget(box);
    names_[n] = box;
    connect(box, &QCheckBox::toggled, this, &VariantControls::readWidgets);
  }
  rows->addLayout(names);
  rows->addLayout(grid);

  featuresLog_ = new QSlider(Qt::Horizontal);
  featuresLog_->setRange(0, 12);  // m = 2^0 … 2^12 = 4096
  featuresLog_->setPageStep(1);
  featuresLog_->setMinimumWidth(90);
  featuresLog_->setToolTip(tr("Performer's number of random features m, in powers of two."));
  features_ = new QSpinBox;
  features_->setRange(1, kMaxFeatures);
  grid->addWidget(labelled(tr("m"), featuresLog_, featuresLog_->toolTip(), features_));
  connect(featuresLog_, &QSlider::valueChanged, this, [this](int v) {
    if (updating_) return;
    const QSignalBlocker block(features_);
    features_->setValue(1 << v);
    readWidgets();
  });
  connect(features_, &QSpinBox::valueChanged, this, [this](int v) {
    if (updating_) return;
    const QSignalBlocker block(featuresLog_);
    featuresLog_->setValue(log2Index(v));
    readWidgets();
  });

  kind_ = new QComboBox;
  kind_->addItems({"positive", "trig"});
  grid->addWidget(labelled(tr("features"), kind_,
                           tr("Random features of the 'performer' tile: positive "
                              "exp(ωx − ‖x‖²/2) or trigonometric sin/cos.")));
  orthogonal_ = new QCheckBox(tr("orthogonal"));
  orthogonal_->setToolTip(
      tr("Orthogonal random features (blocks of orthonormal rows with χ<sub>d</sub> norms) instead of iid."));
  grid->addWidget(orthogonal_);
  seed_ = new QSpinBox;
  seed_->setRange(0, 1000000);
  auto* redraw = new QPushButton(tr("Redraw"));
  redraw->setToolTip(tr("Draw new random features (seed + 1)."));
  connect(redraw, &QPushButton::clicked, seed_, [this] { seed_->setValue(seed_->value() + 1); });
  grid->addWidget(labelled(tr("seed"), seed_, tr("Seed of Performer's random features."), redraw));
  epsilon_ = new QDoubleSpinBox;
  epsilon_->setDecimals(6);
  epsilon_->setRange(0, 1);
  epsilon_->setSingleStep(1e-4);
  grid->addWidget(labelled(tr("ε"), epsilon_,
                           tr("Added to every positive feature: avoids zero rows, but is not "
                              "exact — the error it adds shows in the metrics.")));
  stabilize_ = new QCheckBox(tr("max subtraction"));
  stabilize_->setToolTip(tr("Subtract each query's and the keys' maximum before exp: exact, avoids overflow."));
  grid->addWidget(stabilize_);

  windowOn_ = new QCheckBox(tr("local window"));
  windowOn_->setToolTip(tr("Keep only keys with |i − j| ≤ w on every variant (Su's truncation experiment)."));
  window_ = new QSlider(Qt::Horizontal);
  window_->setRange(0, 32);
  window_->setMinimumWidth(80);
  window_->setToolTip(tr("Window half-width w: each query sees keys i − w … i + w."));
  windowLabel_ = new QLabel;
  windowLabel_->setMinimumWidth(48);
  auto* windowBox = new QWidget;
  auto* wl = new QHBoxLayout(windowBox);
  wl->setContentsMargins(0, 0, 0, 0);
  wl->addWidget(windowOn_);
  wl->addWidget(window_);
  wl->addWidget(windowLabel_);
  grid->addWidget(windowBox);
  causal_ = new QCheckBox(tr("causal mask"));
  causal_->setToolTip(tr("Causal mask on every variant (query i sees keys j ≤ i); linear kinds use prefix sums."));
  grid->addWidget(causal_);
  temperature_ = new QDoubleSpinBox;
  temperature_->setRange(0.05, 20);
  temperature_->setSingleStep(0.1);
  grid->addWidget(labelled(tr("T"), temperature_, tr("Softmax and Performer temperature: scores / T.")));
  dHead_ = new QSpinBox;
  dHead_->setRange(1, 256);
  grid->addWidget(labelled(tr("d<sub>head</sub>"), dHead_,
                           tr("Head size of the built-in model (d<sub>model</sub> = heads × d<sub>head</sub>): "
                              "linear attention's rank is at most d<sub>head</sub>.")));
  topK_ = new QSpinBox;
  topK_->setRange(1, 64);
  grid->addWidget(labelled(tr("top-k"), topK_,
                           tr("Sparsity metric: the share of each row's mass in its k largest "
                              "weights.")));
  redraws_ = new QSpinBox;
  redraws_->setRange(1, 64);
  grid->addWidget(labelled(tr("redraws"), redraws_, tr("Feature redraws R averaged in the error-vs-m curve.")));

  for (QAbstractSpinBox* b :
       std::initializer_list<QAbstractSpinBox*>{features_, seed_, dHead_, topK_, redraws_, epsilon_, temperature_})
    b->setMaximumWidth(90);
  for (QCheckBox* b : {orthogonal_, stabilize_, windowOn_, causal_})
    connect(b, &QCheckBox::toggled, this, &VariantControls::readWidgets);
  for (QSpinBox* s : {seed_, dHead_, topK_, redraws_})
    connect(s, &QSpinBox::valueChanged, this, &VariantControls::readWidgets);
  for (QDoubleSpinBox* s : {epsilon_, temperature_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &VariantControls::readWidgets);
  connect(kind_, &QComboBox::currentIndexChanged, this, &VariantControls::readWidgets);
  connect(window_, &QSlider::valueChanged, this, &VariantControls::readWidgets);
}

void VariantControls::setParams(const Params& p) {
  params_ = p;
  updating_ = true;
  const VariantSettings& s = p.variants;
  for (auto& [name, box] : names_) {
    const QSignalBlocker b(box);
    box->setChecked(std::find(s.names.begin(), s.names.end(), name) != s.names.end());
  }
  const auto setSpin = [](QSpinBox* w, int v) {
    const QSignalBlocker b(w);
    w->setValue(v);
  };
  setSpin(features_, s.features);
  if (!featuresLog_->isSliderDown()) {
    const QSignalBlocker b(featuresLog_);
    featuresLog_->setValue(log2Index(s.features));
  }
  setSpin(seed_, static_cast<int>(std::min<uint64_t>(s.featureSeed, 1000000)));
  setSpin(topK_, s.topK);
  setSpin(redraws_, s.redraws);
  const EffectiveStructure e = resolve(p.model);
  setSpin(dHead_, e.dHead);
  for (const auto& [box, on] : {std::pair{orthogonal_, s.orthogonal},
                                {stabilize_, s.stabilize},
                                {windowOn_, s.window.has_value()},
                                {causal_, s.causal}}) {
    const QSignalBlocker b(box);
    box->setChecked(on);
  }
  if (!window_->isSliderDown()) {
    const QSignalBlocker b(window_);
    window_->setValue(s.window.value_or(window_->value()));
  }
  for (const auto& [w, v] : {std::pair{epsilon_, s.epsilon}, {temperature_, s.temperature}}) {
    const QSignalBlocker b(w);
    w->setValue(v);
  }
  {
    const QSignalBlocker b(kind_);
    kind_->setCurrentIndex(s.featureKind == FeatureKind::Positive ? 0 : 1);
  }
  updating_ = false;
  updateEnabled();
}

void VariantControls::readWidgets() {
  if (updating_) return;
  Params p = params_;
  VariantSettings& s = p.variants;
  s.names.clear();
  for (const std::string& n : variantNames())
    if (names_[n]->isChecked()) s.names.push_back(n);
  if (s.names.empty()) s.names.push_back("softmax");  // at least the reference stays visible
  s.features = features_->value();
  s.featureKind = kind_->currentIndex() == 0 ? FeatureKind::Positive : FeatureKind::Trig;
  s.orthogonal = orthogonal_->isChecked();
  s.featureSeed = static_cast<uint64_t>(seed_->value());
  s.epsilon = epsilon_->value();
  s.stabilize = stabilize_->isChecked();
  s.window = windowOn_->isChecked() ? std::optional<int>(window_->value()) : std::nullopt;
  s.causal = causal_->isChecked();
  s.temperature = temperature_->value();
  s.topK = topK_->value();
  s.redraws = redraws_->value();
  if (p.modelDir.empty()) {
    const EffectiveStructure e = resolve(p.model);
    if (dHead_->value() != e.dHead) p.model.dModel = dHead_->value() * e.heads;
  }
  params_ = p;
  updateEnabled();
  emit edited(p);
}

void VariantControls::updateEnabled() {
  window_->setEnabled(windowOn_->isChecked());
  windowLabel_->setText(windowOn_->isChecked() ? tr("w = %1").arg(window_->value()) : tr("off"));
  dHead_->setEnabled(params_.modelDir.empty());
  epsilon_->setEnabled(params_.variants.featureKind == FeatureKind::Positive ||
                       std::find(params_.variants.names.begin(), params_.variants.names.end(), "performer-positive") !=
                           params_.variants.names.end());
}

void VariantControls::setFontScale(double scale) {
  QFont f = font();
  f.setPointSizeF(9 * scale);
  setFont(f);
}

}  // namespace attnlab::ui
