#include "ui/views/prediction/patching_controls.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <algorithm>
#include <cmath>

namespace attnlab::ui {
namespace {

QLineEdit* editor(const QString& tip) {
  auto* e = new QLineEdit;
  e->setToolTip(tip);
  e->setClearButtonEnabled(false);
  return e;
}

}  // namespace

PatchingControls::PatchingControls(QWidget* parent) : QWidget(parent) {
  clean_ = editor(tr("The clean text: the run whose activations are copied in."));
  corrupt_ = editor(tr("The corrupted text, of the same token length: the run they are copied into."));
  target_ = editor(tr("The target token: a vocabulary piece (Ġmat), a decimal id, or text that is one token ( mat)."));
  versus_ =
      editor(tr("The token the target is compared with: the effect is measured on logit(target) − "
                "logit(versus)."));
  target_->setMaximumWidth(140);
  versus_->setMaximumWidth(140);
  run_ = new QPushButton(tr("Run patching"));
  run_->setToolTip(tr("Compute the map for these inputs (Enter in a field does the same)."));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setToolTip(tr("Stop the computation; the previous map stays on screen."));
  cancel_->setVisible(false);  // only while a map is computed, beside its progress bar
  progress_ = new QProgressBar;
  progress_->setRange(0, 1000);
  progress_->setTextVisible(false);
  progress_->setMaximumHeight(12);
  progress_->setVisible(false);
  progressText_ = new QLabel;
  progressText_->setVisible(false);
  map_ = new QComboBox;
  map_->addItem(tr("heads and positions"), static_cast<int>(PatchMap::All));
  map_->addItem(tr("heads only"), static_cast<int>(PatchMap::Heads));
  map_->addItem(tr("positions only"), static_cast<int>(PatchMap::Positions));
  map_->addItem(tr("head × position"), static_cast<int>(PatchMap::HeadPositions));
  map_->setToolTip(
      tr("Which maps to make: each head's output (layers·heads runs), the residual stream at each position "
         "((layers + 1)·n runs), both, or each head's output at each position (layers·heads·n runs)."));
  status_ = new QLabel;
  status_->setWordWrap(true);
  hint_ = new QLabel;
  hint_->setWordWrap(true);
  hint_->setStyleSheet("color: gray;");

  auto* grid = new QGridLayout;
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(new QLabel(tr("clean")), 0, 0);
  grid->addWidget(clean_, 0, 1, 1, 3);
  grid->addWidget(new QLabel(tr("target")), 0, 4);
  grid->addWidget(target_, 0, 5);
  grid->addWidget(run_, 0, 6);
  grid->addWidget(new QLabel(tr("corrupt")), 1, 0);
  grid->addWidget(corrupt_, 1, 1, 1, 3);
  grid->addWidget(new QLabel(tr("versus")), 1, 4);
  grid->addWidget(versus_, 1, 5);
  grid->addWidget(map_, 1, 6);
  grid->setColumnStretch(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->addLayout(grid);
  auto* running = new QHBoxLayout;
  running->setContentsMargins(0, 0, 0, 0);
  running->addWidget(progress_, 1);
  running->addWidget(progressText_);
  running->addWidget(cancel_);
  layout->addLayout(running);
  layout->addWidget(status_);
  layout->addWidget(hint_);

  for (QLineEdit* e : {clean_, corrupt_, target_, versus_}) {
    connect(e, &QLineEdit::returnPressed, this, &PatchingControls::runRequested);
    connect(e, &QLineEdit::textEdited, this, &PatchingControls::inputsTyped);
  }
  connect(run_, &QPushButton::clicked, this, &PatchingControls::runRequested);
  connect(cancel_, &QPushButton::clicked, this, &PatchingControls::cancelRequested);
  connect(map_, QOverload<int>::of(&QComboBox::activated), this, &PatchingControls::mapChanged);
}

PatchMap PatchingControls::map() const { return static_cast<PatchMap>(map_->currentData().toInt()); }

void PatchingControls::setMap(PatchMap map) {
  const QSignalBlocker block(map_);
  map_->setCurrentIndex(std::max(0, map_->findData(static_cast<int>(map))));
}

QString PatchingControls::progressText() const {
  return progressText_->isVisible() ? progressText_->text() : QString();
}

QString PatchingControls::timeLeft(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  if (s < 60) return tr("about %1 s left").arg(std::max(1LL, s));
  if (s < 3600) return tr("about %1 min %2 s left").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
  return tr("about %1 h %2 min left").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
}

void PatchingControls::setInputs(const PatchingInputs& in) {
  const std::pair<QLineEdit*, const std::string*> fields[] = {
      {clean_, &in.clean}, {corrupt_, &in.corrupt}, {target_, &in.target}, {versus_, &in.versus}};
  for (const auto& [e, text] : fields) {
    const QString t = QString::fromStdString(*text);
    if (e->text() == t) continue;  // keep the cursor where the user left it
    const QSignalBlocker block(e);
    e->setText(t);
  }
}

PatchingInputs PatchingControls::inputs() const {
  return {clean_->text().toStdString(), corrupt_->text().toStdString(), target_->text().toStdString(),
          versus_->text().toStdString()};
}

void PatchingControls::setStatus(const QString& text, bool error) {
  error_ = error;
  status_->setText(text);
  status_->setStyleSheet(error ? "color: #c0392b; font-weight: bold;" : "");
}

QString PatchingControls::status() const { return status_->text(); }

void PatchingControls::setHint(const QString& text) { hint_->setText(text); }

void PatchingControls::setBusy(bool busy) {
  cancel_->setVisible(busy);
  progress_->setVisible(busy);
  progressText_->setVisible(busy);
  progressText_->clear();
  if (busy) {
    progress_->setValue(0);
    started_.start();
  }
}

void PatchingControls::setProgress(double fraction) {
  const double f = std::clamp(fraction, 0.0, 1.0);
  progress_->setValue(static_cast<int>(f * 1000));
  const double elapsed = started_.isValid() ? started_.elapsed() / 1000.0 : 0.0;
  if (f <= 0.0 || f >= 1.0 || elapsed < 0.1) return;
  progressText_->setText(tr("%1 % · %2").arg(static_cast<int>(f * 100)).arg(timeLeft(elapsed * (1.0 - f) / f)));
}

void PatchingControls::setFontScale(double scale) {
  QFont f = font();
  f.setPointSizeF(9 * scale);
  for (QWidget* w : findChildren<QWidget*>()) w->setFont(f);
}

}  // namespace attnlab::ui
