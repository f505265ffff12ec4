#include "ui/views/training/encdec_training_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "core/train/encdec_probe.h"
#include "core/train/tiny_encdec_export.h"
#include "ui/plots/attention_grid.h"
#include "ui/plots/figure_export.h"
#include "ui/views/common/head_names.h"
#include "ui/views/training/train_switch.h"
#include "ui/views/training/trained_model_folder.h"
#include "ui/views/training/training_controls.h"

namespace attnlab::ui {

namespace {
/// What a diffuse head scores against a perfect one: above this a head "reads the alignment".
constexpr double kAligned = 0.5;

/// What the probe's alignment is called for `task` (the maps' titles), and what a head that has it does (the
/// headline).
std::pair<QString, QString> alignmentWords(EncDecTask task) {
  switch (task) {
    case EncDecTask::Reverse:
      return {EncDecTrainingPanel::tr("anti-diagonal"),
              EncDecTrainingPanel::tr("reads the source backwards (anti-diagonal)")};
    case EncDecTask::Translate:
      return {EncDecTrainingPanel::tr("diagonal"), EncDecTrainingPanel::tr("reads the source word by word (diagonal)")};
    case EncDecTask::Sort:
      break;
  }
  return {EncDecTrainingPanel::tr("aligned"), EncDecTrainingPanel::tr("reads the source in sorted order")};
}
}  // namespace

EncDecTrainingPanel::EncDecTrainingPanel(QWidget* parent) : QWidget(parent), worker_(new EncDecTrainingWorker(this)) {
  const EncDecTrainSettings defaults;
  task_ = new QComboBox;
  task_->addItems({"reverse", "sort", "translate"});
  task_->setToolTip(
      tr("reverse: \"d c b a\" → \"a b c d\" (cross-attention becomes the anti-diagonal); sort: the "
         "source's symbols in alphabetical order; translate: word by word from a–j into k–t by a fixed dictionary "
         "(cross-attention becomes the diagonal)"));
  encoderLayers_ = new QSpinBox;
  encoderLayers_->setRange(1, 4);
  encoderLayers_->setValue(defaults.model.encoderLayers);
  decoderLayers_ = new QSpinBox;
  decoderLayers_->setRange(1, 4);
  decoderLayers_->setValue(defaults.model.decoderLayers);
  heads_ = new QSpinBox;
  heads_->setRange(1, 8);
  heads_->setValue(defaults.model.heads);
  dModel_ = makeDModelBox(defaults.model.dModel);
  maxLength_ = new QSpinBox;
  maxLength_->setRange(2, 64);  // validate(TinyEncDecConfig)'s range
  maxLength_->setValue(defaults.model.maxLength);
  maxLength_->setToolTip(tr("Sources are 3 to this many symbols long (a–t); the probe has this length."));
  lr_ = makeLearningRateBox(0.01, 0.001);  // scripts/train-encdec-model's rate: reversal in about 1,300 steps
  seed_ = makeSeedBox(static_cast<int>(defaults.model.seed));
  maxSteps_ = makeStepLimitBox(2000);
  head_ = new QComboBox;
  head_->setToolTip(tr("The cross-attention head framed in the grid and named in the headline"));

  train_ = new QPushButton(tr("Train"));
  reset_ = new QPushButton(tr("Reset"));
  use_ = new QPushButton(tr("Use in views"));
  use_->setToolTip(tr("Open the trained model in the window: source and target, cross view, Translate"));
  save_ = new QPushButton(tr("Save model…"));

  auto* form = new QFormLayout;
  form->addRow(tr("Task"), task_);
  form->addRow(tr("Encoder layers"), encoderLayers_);
  form->addRow(tr("Decoder layers"), decoderLayers_);
  form->addRow(tr("Heads"), heads_);
  form->addRow(tr("d<sub>model</sub>"), dModel_);
  form->addRow(tr("Longest source"), maxLength_);
  form->addRow(tr("Learning rate"), lr_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Stop at step"), maxSteps_);
  form->addRow(tr("Cross head"), head_);
  auto* buttons = new QGridLayout;
  buttons->addWidget(train_, 0, 0);
  buttons->addWidget(reset_, 0, 1);
  buttons->addWidget(use_, 1, 0);
  buttons->addWidget(save_, 1, 1);
  status_ = new QLabel;
  QWidget* left = makeControlsColumn(form, buttons, status_);
  headline_ = makeHeadline();

  // Loss (left axis, blue) and held-out accuracy (right axis, red): the axis titles in the curves' colours say which
  // is which, so no legend covers the curves.
  const QColor lossColour(31, 119, 180), accuracyColour(214, 39, 40);
  plot_ = new QCustomPlot;
  plot_->addGraph();
  plot_->graph(0)->setPen(QPen(lossColour, 1.5));
  plot_->graph(0)->setName(tr("training loss"));
  plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  plot_->graph(1)->setPen(QPen(accuracyColour, 2));
  plot_->graph(1)->setName(tr("held-out accuracy"));
  plot_->xAxis->setLabel(tr("step"));
  plot_->yAxis->setLabel(tr("loss"));
  plot_->yAxis->setLabelColor(lossColour);
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("accuracy"));
  plot_->setToolTip(tr("Blue: the training loss of every step; red: next-token accuracy on held-out sources"));
  plot_->yAxis2->setLabelColor(accuracyColour);
  plot_->yAxis2->setRange(0, 1);
  plot_->setMinimumHeight(180);  // room for the rotated axis titles in F11

  grid_ = new AttentionGrid;
  grid_->setToolTip(
      tr("Cross-attention on the probe: rows = target positions (</s> first), columns = source "
         "positions (</s> last)"));

  probe_ = new QLabel;
  probe_->setWordWrap(true);
  auto* gridBox = new QWidget;
  auto* gridLayout = new QVBoxLayout(gridBox);
  gridLayout->setContentsMargins(0, 0, 0, 0);
  gridLayout->addWidget(grid_, 1);
  gridLayout->addWidget(probe_);
  auto* right = new QSplitter(Qt::Vertical);
  right->addWidget(plot_);
  right->addWidget(gridBox);
  right->setStretchFactor(0, 2);
  right->setStretchFactor(1, 2);
  layOutTrainingPage(this, left, headline_, right);

  connect(worker_, &EncDecTrainingWorker::updated, this, &EncDecTrainingPanel::showUpdate);
  connect(train_, &QPushButton::clicked, this, &EncDecTrainingPanel::toggleTraining);
  connect(reset_, &QPushButton::clicked, this, &EncDecTrainingPanel::resetTrainer);
  connect(use_, &QPushButton::clicked, this, &EncDecTrainingPanel::useInViews);
  connect(save_, &QPushButton::clicked, this, &EncDecTrainingPanel::chooseSaveFolder);
  connect(head_, &QComboBox::currentIndexChanged, this, &EncDecTrainingPanel::redrawGrid);
  // Anything that changes the model, the data or the optimiser starts again from step 0 (paused).
  connect(task_, &QComboBox::currentIndexChanged, this, &EncDecTrainingPanel::resetTrainer);
  connect(dModel_, &QComboBox::currentIndexChanged, this, &EncDecTrainingPanel::resetTrainer);
  for (QSpinBox* b : {encoderLayers_, decoderLayers_, heads_, maxLength_, seed_})
    connect(b, &QSpinBox::valueChanged, this, &EncDecTrainingPanel::resetTrainer);
  connect(lr_, &QDoubleSpinBox::valueChanged, this, &EncDecTrainingPanel::resetTrainer);
  resetTrainer();
}

EncDecTrainSettings EncDecTrainingPanel::settings() const {
  EncDecTrainSettings s;
  s.task = parseEncDecTask(task_->currentText().toStdString());
  s.model.encoderLayers = encoderLayers_->value();
  s.model.decoderLayers = decoderLayers_->value();
  s.model.heads = heads_->value();
  s.model.dModel = dModel_->currentData().toInt();
  s.model.ffn = 2 * s.model.dModel;  // the shipped model's ratio (d 32, FFN 64)
  s.model.maxLength = maxLength_->value();
  s.minLength = std::min(3, s.model.maxLength);
  s.model.seed = static_cast<uint64_t>(seed_->value());
  s.adam.lr = lr_->value();
  s.threads = trainingThreads();
  return s;
}

void EncDecTrainingPanel::setFontScale(double scale) {
  grid_->setFontScale(scale);
  setPlotFontScale(plot_, scale);
}

void EncDecTrainingPanel::resetTrainer() {
  switch_.reset(*worker_, settings());
  updateButtons();
}

void EncDecTrainingPanel::toggleTraining() {
  switch_.toggle(*worker_, maxSteps_->value());
  updateButtons();
}

void EncDecTrainingPanel::updateButtons() {
  train_->setText(switch_.buttonText());
  train_->setEnabled(!switch_.refused());
  const bool haveModel = last_ && last_->params && !switch_.refused();
  use_->setEnabled(haveModel);
  save_->setEnabled(haveModel);
}

int EncDecTrainingPanel::lossPoints() const { return plot_->graph(0)->dataCount(); }

std::pair<int, int> EncDecTrainingPanel::selectedHead() const {
  const QVariant v = head_->currentData();
  if (!v.isValid()) return {0, 0};
  const QPoint p = v.toPoint();
  return {p.x(), p.y()};
}

void EncDecTrainingPanel::showUpdate(const EncDecTrainingUpdatePtr& u) {
  if (!switch_.take(*u, status_)) {  // refused settings: nothing to draw or train until they change
    updateButtons();
    return;
  }
  if (u->reset) {
    plot_->graph(0)->data()->clear();
    plot_->graph(1)->data()->clear();
    losses_.clear();
    accuracy_.clear();
    // The head list follows the decoder's shape; the selection stays where it still exists.
    const auto [oldLayer, oldHead] = selectedHead();
    const QSignalBlocker block(head_);
    head_->clear();
    const auto& a = u->snapshot.alignment;
    for (std::size_t l = 0; l < a.size(); ++l)
      for (std::size_t h = 0; h < a[l].size(); ++h)
        head_->addItem(headLabel(static_cast<int>(l), static_cast<int>(h)),
                       QPoint(static_cast<int>(l), static_cast<int>(h)));
    const int keep = head_->findData(QPoint(oldLayer, oldHead));
    head_->setCurrentIndex(keep >= 0 ? keep : 0);
  }
  last_ = u;
  const EncDecSnapshot& s = u->snapshot;
  for (const auto& [step, loss] : u->losses) plot_->graph(0)->addData(step, loss);
  plot_->graph(1)->addData(s.step, s.heldOut.accuracy);
  losses_.insert(losses_.end(), u->losses.begin(), u->losses.end());
  accuracy_.emplace_back(s.step, s.heldOut.accuracy);
  plot_->xAxis->rescale();
  plot_->yAxis->rescale();
  plot_->yAxis->setRangeLower(0);
  plot_->replot(QCustomPlot::rpQueuedReplot);
  redrawGrid();

  if (u->error.empty()) {
    const QString probe = tr("held-out accuracy %1 (%2 pairs, teacher-forced) · alignment mass %3")
                              .arg(s.heldOut.accuracy, 0, 'f', 3)
                              .arg(s.heldOut.pairs)
                              .arg(s.heldOut.alignedMass, 0, 'f', 2);
    status_->setText(s.step == 0 ? tr("step 0: untrained weights (%1). Press Train.").arg(probe)
                                 : tr("step %1 · loss %2 · %3%4")
                                       .arg(s.step)
                                       .arg(s.loss, 0, 'f', 4)
                                       .arg(probe)
                                       .arg(TrainSwitch::msPerStep(u->msPerStep)));
  }
  switch_.settle(*u, *worker_);
  updateButtons();
}

void EncDecTrainingPanel::redrawGrid() {
  if (!last_ || !last_->params) return;
  const EncDecSnapshot& s = last_->snapshot;
  const EncDecTask task = last_->settings.task;
  const auto [scoreName, what] = alignmentWords(task);
  std::vector<std::vector<QString>> titles(s.cross.size());
  for (std::size_t l = 0; l < s.cross.size(); ++l)
    for (std::size_t h = 0; h < s.cross[l].size(); ++h)
      titles[l].push_back(QString("cross %1 · %2 %3")
                              .arg(headLabel(static_cast<int>(l), static_cast<int>(h)))
                              .arg(scoreName)
                              .arg(s.alignment[l][h], 0, 'f', 2));
  drawn_ = s.cross;
  // The probe's tokens, so the class can read the maps' axes.
  const std::vector<std::string> vocab = tinyEncDecVocabulary(last_->settings.model);
  const EncDecProbe probe = encDecProbe(last_->settings.task, last_->settings.model);
  auto words = [&](const std::vector<int>& ids) {
    QStringList w;
    for (int id : ids) w << QString::fromStdString(vocab[static_cast<std::size_t>(id)]);
    return w.join(' ').toHtmlEscaped();
  };
  probe_->setText(tr("Rows (target, the decoder's input): %1<br>Columns (source): %2")
                      .arg(words(probe.target), words(probe.source)));
  const auto [layer, head] = selectedHead();
  grid_->setData(drawn_, titles, layer, head);
  if (static_cast<std::size_t>(layer) >= s.alignment.size()) return;
  const double score = s.alignment[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head)];
  const double uniform = s.cross.empty() ? 0.0 : 1.0 / static_cast<double>(s.cross[0][0].cols());
  // The task and the step first: a figure of the page (which leaves the controls out) says what it shows.
  const QString when = tr("%1, step %2").arg(QString(toString(task))).arg(s.step);
  headline_->setText(score >= kAligned
                         ? tr("%1: cross-attention %2 %3: %4 of its weight on the aligned source token")
                               .arg(when, headLabel(layer, head), what)
                               .arg(score, 0, 'f', 2)
                         : tr("%1: cross-attention %2 not aligned yet: %3 on the aligned source token (uniform: %4)")
                               .arg(when, headLabel(layer, head))
                               .arg(score, 0, 'f', 2)
                               .arg(uniform, 0, 'f', 2));
}

EncDecTrainingRun EncDecTrainingPanel::run() const {
  if (!last_ || !last_->params) return {};
  return {last_, losses_, accuracy_};
}

namespace {
/// `run`'s (step, value) pairs as a [points, 1] matrix called `name`, its rows labelled with the step.
LabelledMatrix curve(const std::string& name, const std::string& title, const std::string& column,
                     const std::vector<std::pair<int, double>>& points) {
  LabelledMatrix m;
  m.name = name, m.title = title, m.colLabels = {column};
  m.values.resize(static_cast<Eigen::Index>(points.size()), 1);
  for (std::size_t i = 0; i < points.size(); ++i) {
    m.values(static_cast<Eigen::Index>(i), 0) = points[i].second;
    m.rowLabels.push_back(std::to_string(points[i].first));
  }
  return m;
}
}  // namespace

ViewNumbers EncDecTrainingPanel::numbers(const EncDecTrainingRun& run) {
  ViewNumbers n;
  n.view = "training";
  n.title = "Training: encoder–decoder";
  if (!run.latest) return n;
  const EncDecTrainSettings& s = run.latest->settings;
  const EncDecSnapshot& snap = run.latest->snapshot;
  const TinyEncDecConfig& c = s.model;
  n.params = {{"task", toString(s.task)},
              {"model",
               {{"encoder_layers", c.encoderLayers},
                {"decoder_layers", c.decoderLayers},
                {"heads", c.heads},
                {"d_model", c.dModel},
                {"ffn", c.ffn},
                {"max_length", c.maxLength},
                {"symbols", c.symbols},
                {"seed", c.seed}}},
              {"lr", s.adam.lr},
              {"batch", s.batch},
              {"step", snap.step}};
  n.matrices.push_back(curve("loss", "Training loss per step", "loss", run.losses));
  n.matrices.push_back(curve("accuracy", "Held-out accuracy (teacher-forced)", "held_out_accuracy", run.accuracy));
  const std::string scoreName = alignmentWords(s.task).first.replace('-', '_').toStdString();
  LabelledMatrix a;
  a.name = "alignment";
  a.title = "Cross-attention on the aligned source token, probe, step " + std::to_string(snap.step);
  a.colLabels = {scoreName};
  std::vector<double> scores;
  for (std::size_t l = 0; l < snap.alignment.size(); ++l)
    for (std::size_t h = 0; h < snap.alignment[l].size(); ++h) {
      a.rowLabels.push_back(headLabel(static_cast<int>(l), static_cast<int>(h)).toStdString());
      scores.push_back(snap.alignment[l][h]);
    }
  a.values = Eigen::Map<const Eigen::VectorXd>(scores.data(), static_cast<Eigen::Index>(scores.size()));
  n.matrices.push_back(std::move(a));
  const std::vector<std::string> vocab = tinyEncDecVocabulary(c);
  const EncDecProbe probe = encDecProbe(s.task, c);
  auto words = [&](const std::vector<int>& ids) {
    std::vector<std::string> w;
    for (int id : ids) w.push_back(vocab[static_cast<std::size_t>(id)]);
    return w;
  };
  for (std::size_t l = 0; l < snap.cross.size(); ++l)
    for (std::size_t h = 0; h < snap.cross[l].size(); ++h) {
      LabelledMatrix m;
      const std::string head = headLabel(static_cast<int>(l), static_cast<int>(h)).toStdString();
      m.name = "cross_" + head;
      m.title = "Cross-attention " + head + " on the probe (rows: target, columns: source)";
      m.values = snap.cross[l][h].cast<double>();
      m.rowLabels = words(probe.target);
      m.colLabels = words(probe.source);
      n.matrices.push_back(std::move(m));
    }
  return n;
}

void EncDecTrainingPanel::showRun(const EncDecTrainingRun& run) {
  if (!run.latest) return;
  auto u = std::make_shared<EncDecTrainingUpdate>(*run.latest);
  u->losses = run.losses;
  u->reset = true;  // replaces whatever was drawn
  u->running = false;
  u->error.clear();
  showUpdate(u);
  // showUpdate drew the latest accuracy only: the run's whole curve replaces it.
  accuracy_ = run.accuracy;
  plot_->graph(1)->data()->clear();
  for (const auto& [step, accuracy] : accuracy_) plot_->graph(1)->addData(step, accuracy);
  plot_->xAxis->rescale();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString EncDecTrainingPanel::saveModel(const QString& dir) const {
  if (!last_ || !last_->params) return tr("there is no model yet");
  try {
    saveTinyEncDecModel(dir.toStdString(), last_->settings, *last_->params);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

void EncDecTrainingPanel::useInViews() {
  if (!last_ || !last_->params) return;
  const EncDecTrainSettings& t = last_->settings;
  const QString dir = saveForViews(this,
                                   QString("%1-encdec-E%2D%3H%4-step%5")
                                       .arg(toString(t.task))
                                       .arg(t.model.encoderLayers)
                                       .arg(t.model.decoderLayers)
                                       .arg(t.model.heads)
                                       .arg(last_->snapshot.step),
                                   [this](const QString& d) { return saveModel(d); });
  if (!dir.isEmpty()) emit useModelRequested(dir);
}

void EncDecTrainingPanel::chooseSaveFolder() {
  saveWithDialog(this, tr("Save the trained encoder–decoder as a folder"),
                 QString("%1-encdec-model").arg(task_->currentText()),
                 [this](const QString& d) { return saveModel(d); });
}

}  // namespace attnlab::ui
