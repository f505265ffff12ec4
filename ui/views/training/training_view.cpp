#include "ui/views/training/training_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include <qcustomplot.h>

#include "core/atlas/head_atlas.h"
#include "core/train/tiny_checkpoint.h"
#include "core/train/train_json.h"
#include "ui/plots/attention_grid.h"
#include "ui/plots/figure_export.h"
#include "ui/views/common/head_names.h"
#include "ui/views/training/train_switch.h"
#include "ui/views/training/trained_model_folder.h"
#include "ui/views/training/training_controls.h"

namespace attnlab::ui {

namespace {

/// "L1H2 · induction 0.91" — the head's primary score under its heatmap.
QString cellTitle(int l, int h, const std::map<std::string, double>& scores, TrainTask task) {
  const auto it = scores.find(primaryScore(task));
  const double v = it == scores.end() ? 0.0 : it->second;
  return QString("%1 · %2 %3")
      .arg(headLabel(l, h))
      .arg(QString(primaryScore(task)).replace('_', ' '))
      .arg(v, 0, 'f', 2);
}

}  // namespace

TrainingView::TrainingView(QWidget* parent) : QWidget(parent), worker_(new TrainingWorker(this)) {
  const TrainSettings defaults;
  task_ = new QComboBox;
  for (const std::string& n : trainTaskNames()) task_->addItem(QString::fromStdString(n));
  task_->setToolTip(
      tr("induction: [BOS, s, s, …] with a random period; reverse/copy: s SEP rev(s) / s; sort: s SEP "
         "sorted(s); recall: key–value pairs, then queries"));
  layers_ = new QSpinBox;
  layers_->setRange(1, 4);
  layers_->setValue(defaults.model.layers);
  layers_->setToolTip(tr("One layer cannot form an induction head; two can (the class can watch both)."));
  heads_ = new QSpinBox;
  heads_->setRange(1, 8);
  heads_->setValue(defaults.model.heads);
  dModel_ = makeDModelBox(defaults.model.dModel);
  mlp_ = new QCheckBox(tr("MLP sub-blocks"));
  mlp_->setChecked(defaults.model.mlp);
  activation_ = new QComboBox;
  activation_->addItems({"gelu", "relu"});
  activation_->setToolTip(tr("The MLP's non-linearity"));
  layerNorm_ = new QCheckBox(tr("LayerNorm"));
  layerNorm_->setChecked(defaults.model.layerNorm);
  variant_ = new QComboBox;
  for (TinyAttention a : {TinyAttention::Softmax, TinyAttention::LinearElu, TinyAttention::LinearExp})
    variant_->addItem(QString(toString(a)));
  variant_->setToolTip(
      tr("Causal softmax, or linear attention with φ = elu+1 or exp: does linear attention learn "
         "induction?"));
  lr_ = makeLearningRateBox(defaults.adam.lr, 0.0005);
  lr_->setToolTip(tr("Adam's learning rate; changes apply to the running training at once."));
  seed_ = makeSeedBox(static_cast<int>(defaults.model.seed));
  maxSteps_ = makeStepLimitBox(3000);

  train_ = new QPushButton(tr("Train"));
  step_ = new QPushButton(tr("Step"));
  reset_ = new QPushButton(tr("Reset"));
  use_ = new QPushButton(tr("Use in views"));
  use_->setToolTip(tr("Open the trained model in every other view (heatmaps, variants, spectra, collapse, export)"));
  save_ = new QPushButton(tr("Save model…"));

  auto* form = new QFormLayout;
  form->addRow(tr("Task"), task_);
  form->addRow(tr("Layers"), layers_);
  form->addRow(tr("Heads"), heads_);
  form->addRow(tr("d<sub>model</sub>"), dModel_);
  form->addRow(QString(), mlp_);
  form->addRow(tr("MLP activation"), activation_);
  form->addRow(QString(), layerNorm_);
  form->addRow(tr("Attention"), variant_);
  form->addRow(tr("Learning rate"), lr_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Stop at step"), maxSteps_);
  auto* buttons = new QGridLayout;
  buttons->addWidget(train_, 0, 0);
  buttons->addWidget(step_, 0, 1);
  buttons->addWidget(reset_, 1, 0);
  buttons->addWidget(use_, 1, 1);
  buttons->addWidget(save_, 2, 0, 1, 2);
  status_ = new QLabel;
  QWidget* left = makeControlsColumn(form, buttons, status_);
  headline_ = makeHeadline();

  loss_ = new QCustomPlot;
  loss_->addGraph();
  loss_->graph(0)->setPen(QPen(QColor(31, 119, 180), 1.5));
  loss_->xAxis->setLabel(tr("step"));
  loss_->yAxis->setLabel(tr("loss (log)"));
  loss_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  loss_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  loss_->setMinimumHeight(160);

  grid_ = new AttentionGrid;
  table_ = new QTableWidget;
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setMinimumHeight(100);

  auto* right = new QSplitter(Qt::Vertical);
  right->addWidget(loss_);
  right->addWidget(grid_);
  right->addWidget(table_);
  right->setStretchFactor(0, 2);
  right->setStretchFactor(1, 4);
  right->setStretchFactor(2, 1);
  auto* single = new QWidget;
  layOutTrainingPage(single, left, headline_, right);
  // Two pages: the one-text tasks above, and the encoder–decoder's toy translations (issue 33).
  encDec_ = new EncDecTrainingPanel;
  tabs_ = new QTabWidget;
  tabs_->setDocumentMode(true);  // no frame: the pages keep their width on a 1280-pixel screen
  // Tabs on the side: in F11 on a 720-pixel screen the one-text page needs all of the height.
  tabs_->setTabPosition(QTabWidget::West);
  tabs_->addTab(single, tr("One text"));
  tabs_->addTab(encDec_, tr("Two texts: encoder–decoder"));
  tabs_->tabBar()->setProperty(kScreenOnlyProperty, true);  // a figure of the run holds no tabs
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(tabs_);
  connect(encDec_, &EncDecTrainingPanel::useModelRequested, this, &TrainingView::useEncDecModelRequested);

  connect(worker_, &TrainingWorker::updated, this, &TrainingView::showUpdate);
  connect(train_, &QPushButton::clicked, this, &TrainingView::toggleTraining);
  connect(step_, &QPushButton::clicked, this, [this] { worker_->stepOnce(); });
  connect(reset_, &QPushButton::clicked, this, &TrainingView::resetTrainer);
  connect(use_, &QPushButton::clicked, this, &TrainingView::useInViews);
  connect(save_, &QPushButton::clicked, this, &TrainingView::chooseSaveFolder);
  connect(lr_, &QDoubleSpinBox::valueChanged, this, [this](double v) { worker_->setLearningRate(v); });
  // Anything that changes the model or the data starts again from step 0 (paused).
  connect(task_, &QComboBox::currentIndexChanged, this, &TrainingView::resetTrainer);
  connect(layers_, &QSpinBox::valueChanged, this, &TrainingView::resetTrainer);
  connect(heads_, &QSpinBox::valueChanged, this, &TrainingView::resetTrainer);
  connect(dModel_, &QComboBox::currentIndexChanged, this, &TrainingView::resetTrainer);
  connect(mlp_, &QCheckBox::toggled, this, &TrainingView::resetTrainer);
  connect(layerNorm_, &QCheckBox::toggled, this, &TrainingView::resetTrainer);
  connect(activation_, &QComboBox::currentIndexChanged, this, &TrainingView::resetTrainer);
  connect(mlp_, &QCheckBox::toggled, activation_, &QWidget::setEnabled);
  activation_->setEnabled(mlp_->isChecked());
  connect(variant_, &QComboBox::currentIndexChanged, this, &TrainingView::resetTrainer);
  connect(seed_, &QSpinBox::valueChanged, this, &TrainingView::resetTrainer);
  resetTrainer();
}

bool TrainingView::showsEncDec() const { return tabs_->currentWidget() == encDec_; }

TrainSettings TrainingView::settings() const {
  TrainSettings s;
  s.task = parseTrainTask(task_->currentText().toStdString());
  s.model.layers = layers_->value();
  s.model.heads = heads_->value();
  s.model.dModel = dModel_->currentData().toInt();
  s.model.mlp = mlp_->isChecked();
  s.model.layerNorm = layerNorm_->isChecked();
  s.model.relu = activation_->currentText() == "relu";
  s.model.attention = parseTinyAttention(variant_->currentText().toStdString());
  s.model.seed = static_cast<uint64_t>(seed_->value());
  s.adam.lr = lr_->value();
  s.threads = trainingThreads();
  return s;
}

void TrainingView::setFontScale(double scale) {
  encDec_->setFontScale(scale);
  grid_->setFontScale(scale);
  setPlotFontScale(loss_, scale);
}

void TrainingView::resetTrainer() {
  switch_.reset(*worker_, settings());
  updateButtons();
}

void TrainingView::toggleTraining() {
  switch_.toggle(*worker_, maxSteps_->value());
  updateButtons();
}

void TrainingView::updateButtons() {
  train_->setText(switch_.buttonText());
  train_->setEnabled(!switch_.refused());
  step_->setEnabled(!switch_.training() && !switch_.refused());
  const bool haveModel = last_ && last_->params;
  use_->setEnabled(haveModel);
  save_->setEnabled(haveModel);
}

int TrainingView::lossPoints() const { return loss_->graph(0)->dataCount(); }

void TrainingView::showUpdate(const TrainingUpdatePtr& u) {
  if (!switch_.take(*u, status_)) {  // the settings were refused: nothing to draw, nothing to train until they change
    updateButtons();
    return;
  }
  if (u->reset) {
    loss_->graph(0)->data()->clear();
    history_.clear();
  }
  last_ = u;
  history_.insert(history_.end(), u->losses.begin(), u->losses.end());
  for (const auto& [step, loss] : u->losses) loss_->graph(0)->addData(step, std::max(loss, 1e-6));
  loss_->rescaleAxes();
  loss_->replot(QCustomPlot::rpQueuedReplot);

  const TrainSnapshot& s = u->snapshot;
  const TrainTask task = u->settings.task;
  std::vector<std::vector<QString>> titles(s.scores.size());
  for (std::size_t l = 0; l < s.scores.size(); ++l)
    for (std::size_t h = 0; h < s.scores[l].size(); ++h)
      titles[l].push_back(cellTitle(static_cast<int>(l), static_cast<int>(h), s.scores[l][h], task));
  const BestHead primary = bestHead(s, task);
  grid_->setData(s.attention, titles, primary.layer, primary.head);

  const BestHead previous = bestHead(s, "previous_token");
  // A head "is" an induction (mirror, …) head once its score is well above what diffuse attention gives.
  constexpr double kFormed = 0.4;
  QString head = primary.score >= kFormed ? tr("%1 head: layer %2 head %3 (score %4)")
                                                .arg(primaryScore(task))
                                                .arg(primary.layer)
                                                .arg(primary.head)
                                                .arg(primary.score, 0, 'f', 2)
                                          : tr("no %1 head yet (best: layer %2 head %3, %4)")
                                                .arg(primaryScore(task))
                                                .arg(primary.layer)
                                                .arg(primary.head)
                                                .arg(primary.score, 0, 'f', 2);
  if (task == TrainTask::Induction)
    head += previous.score >= kFormed ? tr(" · previous-token head: layer %1 head %2 (%3)")
                                            .arg(previous.layer)
                                            .arg(previous.head)
                                            .arg(previous.score, 0, 'f', 2)
                                      : tr(" · no previous-token head yet");
  headline_->setText(head.replace('_', ' '));

  // Table: one row per head, one column per score.
  QStringList columns{tr("layer"), tr("head")};
  std::vector<std::string> keys;
  if (!s.scores.empty() && !s.scores[0].empty())
    for (const auto& kv : s.scores[0][0]) keys.push_back(kv.first), columns << QString::fromStdString(kv.first);
  int rows = 0;
  for (const auto& l : s.scores) rows += static_cast<int>(l.size());
  table_->setColumnCount(static_cast<int>(columns.size()));
  table_->setHorizontalHeaderLabels(columns);
  table_->setRowCount(rows);
  int r = 0;
  for (std::size_t l = 0; l < s.scores.size(); ++l)
    for (std::size_t h = 0; h < s.scores[l].size(); ++h, ++r) {
      auto set = [&](int c, const QString& text) {
        QTableWidgetItem* item = table_->item(r, c);
        if (!item) table_->setItem(r, c, item = new QTableWidgetItem);
        item->setText(text);
      };
      set(0, QString::number(l));
      set(1, QString::number(h));
      for (std::size_t k = 0; k < keys.size(); ++k)
        set(static_cast<int>(k) + 2, QString::number(s.scores[l][h].at(keys[k]), 'f', 3));
    }

  if (u->error.empty())
    status_->setText(s.step == 0 ? tr("step 0: untrained weights. Press Train.")
                                 : tr("step %1 · loss %2 · probe accuracy %3%4")
                                       .arg(s.step)
                                       .arg(s.loss, 0, 'f', 4)
                                       .arg(s.accuracy, 0, 'f', 2)
                                       .arg(TrainSwitch::msPerStep(u->msPerStep)));
  // Reached the step limit or diverged; an update published before the latest Train says nothing.
  switch_.settle(*u, *worker_);
  updateButtons();
}

TrainingUpdatePtr TrainingView::run() const {
  if (!last_) return nullptr;
  auto r = std::make_shared<TrainingUpdate>(*last_);
  r->losses = history_;
  r->reset = true;
  r->running = false;
  r->error.clear();
  return r;
}

void TrainingView::showRun(const TrainingUpdatePtr& run) {
  if (!run) return;
  auto r = std::make_shared<TrainingUpdate>(*run);
  r->reset = true;  // replaces whatever was drawn
  showUpdate(r);
}

TrainingUpdatePtr TrainingView::trainingRun(const TrainHistory& history, const TrainSettings& settings) {
  auto r = std::make_shared<TrainingUpdate>();
  r->settings = settings;
  r->settings.task = history.task;
  r->snapshot = history.final;
  r->losses = history.losses;
  r->reset = true;
  return r;
}

ViewNumbers TrainingView::numbers() const {
  ViewNumbers n;
  n.view = "training";
  n.title = "Training";
  if (!last_) return n;
  const TrainSettings& s = last_->settings;
  n.params = {{"task", toString(s.task)},
              {"model", toJson(s.model)},
              {"lr", s.adam.lr},
              {"batch", s.batch},
              {"step", last_->snapshot.step}};
  LabelledMatrix loss;
  loss.name = "loss";
  loss.title = "Training loss per step";
  loss.values.resize(static_cast<Eigen::Index>(history_.size()), 1);
  for (std::size_t i = 0; i < history_.size(); ++i) {
    loss.values(static_cast<Eigen::Index>(i), 0) = history_[i].second;
    loss.rowLabels.push_back(std::to_string(history_[i].first));
  }
  loss.colLabels = {"loss"};
  n.matrices.push_back(std::move(loss));
  const auto& scores = last_->snapshot.scores;
  if (!scores.empty() && !scores[0].empty()) {
    LabelledMatrix m;
    m.name = "scores";
    m.title = "Head scores on the probe at step " + std::to_string(last_->snapshot.step);
    for (const auto& kv : scores[0][0]) m.colLabels.push_back(kv.first);
    int rows = 0;
    for (const auto& l : scores) rows += static_cast<int>(l.size());
    m.values.resize(rows, static_cast<Eigen::Index>(m.colLabels.size()));
    int r = 0;
    for (std::size_t l = 0; l < scores.size(); ++l)
      for (std::size_t h = 0; h < scores[l].size(); ++h, ++r) {
        m.rowLabels.push_back(headName(static_cast<int>(l), static_cast<int>(h)));
        for (std::size_t c = 0; c < m.colLabels.size(); ++c) {
          const auto it = scores[l][h].find(m.colLabels[c]);
          m.values(r, static_cast<Eigen::Index>(c)) = it == scores[l][h].end() ? std::nan("") : it->second;
        }
      }
    n.matrices.push_back(std::move(m));
  }
  return n;
}

QString TrainingView::saveModel(const QString& dir) const {
  if (!last_ || !last_->params) return tr("there is no model yet");
  try {
    saveTinyModel(dir.toStdString(), last_->settings.model, *last_->params);
    // The run beside the model: `attnlab export --view training --model DIR` draws it again.
    const TrainingUpdatePtr whole = run();
    saveTrainHistory(dir.toStdString(), TrainHistory{whole->settings.task, whole->losses, whole->snapshot});
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

void TrainingView::useInViews() {
  if (!last_) return;
  const QString dir = saveForViews(this,
                                   QString("%1-L%2H%3-step%4")
                                       .arg(toString(last_->settings.task))
                                       .arg(last_->settings.model.layers)
                                       .arg(last_->settings.model.heads)
                                       .arg(last_->snapshot.step),
                                   [this](const QString& d) { return saveModel(d); });
  if (!dir.isEmpty()) emit useModelRequested(dir);
}

void TrainingView::chooseSaveFolder() {
  saveWithDialog(this, tr("Save the trained model as a folder"), QString("%1-model").arg(task_->currentText()),
                 [this](const QString& d) { return saveModel(d); });
}

}  // namespace attnlab::ui
