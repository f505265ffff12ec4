#include "ui/views/prediction/prediction_controls.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

#include "ui/plots/flow_layout.h"

namespace attnlab::ui {
PredictionControls::PredictionControls(QWidget* parent) : QWidget(parent) {
  auto* row = new FlowLayout(this);  // wraps on a narrow view instead of widening the window
  temperature_ = new QDoubleSpinBox;
  temperature_->setObjectName("predictionTemperature");
  temperature_->setRange(0.05, 10.0);
  temperature_->setSingleStep(0.1);
  temperature_->setDecimals(2);
  temperature_->setToolTip(tr("Probabilities are softmax(logits / T): T < 1 sharpens, T > 1 flattens"));
  topK_ = new QSpinBox;
  topK_->setObjectName("predictionTopK");
  topK_->setRange(0, 1000000);
  topK_->setSpecialValueText(tr("all"));
  topK_->setToolTip(tr("Sampling keeps only the k most probable tokens (all: no limit)"));
  topP_ = new QDoubleSpinBox;
  topP_->setObjectName("predictionTopP");
  topP_->setRange(0.01, 1.0);
  topP_->setSingleStep(0.05);
  topP_->setDecimals(2);
  topP_->setToolTip(tr("Sampling keeps the most probable tokens until their mass reaches p (1: all)"));
  row->addLabelled(tr("&Temperature"), temperature_);
  row->addLabelled(tr("Top-&k"), topK_);
  row->addLabelled(tr("Top-&p"), topP_);
  next_ = new QPushButton(tr("&Next token"));
  next_->setToolTip(tr("Append the next token to the sentence (Ctrl+G)"));
  steps_ = new QSpinBox;
  steps_->setRange(1, 512);
  steps_->setToolTip(tr("How many tokens Generate appends, one step at a time"));
  generate_ = new QPushButton(tr("&Generate"));
  generate_->setToolTip(tr("Append this many tokens; every view follows each step"));
  stop_ = new QPushButton(tr("Stop"));
  stop_->hide();
  sample_ = new QCheckBox(tr("&Sample"));
  sample_->setToolTip(tr("Draw from the kept tokens with the seed; unchecked: always the most probable (greedy)"));
  seed_ = new QSpinBox;
  seed_->setRange(0, 1000000000);
  seed_->setPrefix(tr("seed "));
  row->addWidget(next_);
  row->addWidget(generate_);
  row->addWidget(steps_);
  row->addWidget(stop_);
  row->addWidget(sample_);
  row->addWidget(seed_);
  setSettings(settings_);
  for (auto* spin : {temperature_, topP_})
    connect(spin, &QDoubleSpinBox::valueChanged, this, &PredictionControls::emitEdit);
  for (auto* spin : {topK_, seed_, steps_}) connect(spin, &QSpinBox::valueChanged, this, &PredictionControls::emitEdit);
  connect(sample_, &QCheckBox::toggled, this, &PredictionControls::emitEdit);
  connect(next_, &QPushButton::clicked, this, [this] { emit generateRequested(1); });
  connect(generate_, &QPushButton::clicked, this, [this] { emit generateRequested(steps_->value()); });
  connect(stop_, &QPushButton::clicked, this, &PredictionControls::stopRequested);
}

void PredictionControls::setSettings(const PredictionSettings& s) {
  settings_ = s;
  updating_ = true;
  temperature_->setValue(s.temperature);
  topK_->setValue(s.topK);
  topP_->setValue(s.topP);
  sample_->setChecked(!s.greedy);
  seed_->setValue(static_cast<int>(std::min<uint64_t>(s.seed, 1000000000)));
  seed_->setEnabled(!s.greedy);
  steps_->setValue(s.generateSteps);
  updating_ = false;
}

void PredictionControls::emitEdit() {
  if (updating_) return;
  settings_.temperature = temperature_->value();
  settings_.topK = topK_->value();
  settings_.topP = topP_->value();
  settings_.greedy = !sample_->isChecked();
  settings_.seed = static_cast<uint64_t>(seed_->value());
  settings_.generateSteps = steps_->value();
  seed_->setEnabled(!settings_.greedy);
  emit settingsEdited(settings_);
}

void PredictionControls::setGenerating(bool on) {
  stop_->setVisible(on);
  next_->setVisible(!on);
  generate_->setVisible(!on);
}

void PredictionControls::setGenerateEnabled(bool on, const QString& why) {
  // Hidden, not disabled: a disabled button swallows the right click that opens the view's export menu.
  for (QWidget* w : std::initializer_list<QWidget*>{next_, generate_, steps_, sample_, seed_}) w->setVisible(on);
  setToolTip(on ? QString() : why);
}

}  // namespace attnlab::ui
