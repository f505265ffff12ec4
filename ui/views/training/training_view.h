#pragma once
// The Training view: pick a toy task and a small model, press Train, and watch — while it trains — the
// loss curve, the attention of every head on a fixed probe sequence and a score per head saying what it
// has become (induction, previous-token, mirror, …). Pause, step, reset, change the learning rate (live)
// or the seed (resets). "Use in views" hands the trained model to every other view as an ordinary model
// (saved as a checkpoint folder and opened like one); "Save model…" writes it where the user chooses.
// A second tab trains a tiny encoder–decoder on a toy translation (encdec_training_panel.h).
#include <QWidget>

#include "core/session/view_numbers.h"
#include "core/train/train_history.h"
#include "ui/views/training/encdec_training_panel.h"
#include "ui/views/training/train_switch.h"
#include "ui/views/training/training_worker.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QCustomPlot;

namespace attnlab::ui {

class AttentionGrid;

class TrainingView : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingView(QWidget* parent = nullptr);
  /// The settings the controls show.
  TrainSettings settings() const;
  void setFontScale(double scale);
  /// Saves the latest weights into `dir` (created if missing); returns an error message or "".
  QString saveModel(const QString& dir) const;
  TrainingWorker* worker() const { return worker_; }
  /// The latest update drawn (nullptr before the first).
  const TrainingUpdatePtr& lastUpdate() const { return last_; }
  /// The whole run drawn so far as one update: the latest snapshot with every loss since the reset (nullptr
  /// before the first update). What the figure and numbers export of the page draw.
  TrainingUpdatePtr run() const;
  /// Draws `run` (one update holding a whole run: run(), or trainingRun of a history) in place of what is
  /// drawn: the export's offscreen copy of the page.
  void showRun(const TrainingUpdatePtr& run);
  /// The numbers behind the figure: "loss" [steps, 1] (rows: the step) and "scores" [heads, scores]
  /// (rows "L0 H1", columns the score names). Empty before the first update.
  ViewNumbers numbers() const;
  /// The run of a saved or bounded training as one update the view draws.
  static TrainingUpdatePtr trainingRun(const TrainHistory& history, const TrainSettings& settings);
  int lossPoints() const;
  QPushButton* trainButton() const { return train_; }
  QPushButton* stepButton() const { return step_; }
  QPushButton* resetButton() const { return reset_; }
  QPushButton* useButton() const { return use_; }
  QComboBox* taskBox() const { return task_; }
  QSpinBox* layersBox() const { return layers_; }
  QSpinBox* headsBox() const { return heads_; }
  QSpinBox* seedBox() const { return seed_; }
  QDoubleSpinBox* lrBox() const { return lr_; }
  QSpinBox* stepsBox() const { return maxSteps_; }
  QLabel* headline() const { return headline_; }
  QLabel* status() const { return status_; }
  AttentionGrid* grid() const { return grid_; }
  QTableWidget* table() const { return table_; }
  /// The encoder–decoder page (the second tab) and the tabs.
  EncDecTrainingPanel* encDecPanel() const { return encDec_; }
  QTabWidget* tabs() const { return tabs_; }
  /// True while the encoder–decoder tab is the one shown.
  bool showsEncDec() const;

 signals:
  /// "Use in views": the model was saved into `dir`; the window opens it.
  void useModelRequested(const QString& dir);
  /// The same for the encoder–decoder page: `dir` is a BART folder.
  void useEncDecModelRequested(const QString& dir);

 private:
  void resetTrainer();
  void toggleTraining();
  void showUpdate(const TrainingUpdatePtr& u);
  void useInViews();
  void chooseSaveFolder();
  void updateButtons();

  TrainingWorker* worker_;
  QComboBox* task_;
  QSpinBox* layers_;
  QSpinBox* heads_;
  QComboBox* dModel_;
  QCheckBox* mlp_;
  QCheckBox* layerNorm_;
  QComboBox* activation_;
  QComboBox* variant_;
  QDoubleSpinBox* lr_;
  QSpinBox* seed_;
  QSpinBox* maxSteps_;
  QPushButton* train_;
  QPushButton* step_;
  QPushButton* reset_;
  QPushButton* use_;
  QPushButton* save_;
  QLabel* headline_;
  QLabel* status_;
  QCustomPlot* loss_;
  AttentionGrid* grid_;
  QTableWidget* table_;
  QTabWidget* tabs_;
  EncDecTrainingPanel* encDec_;
  TrainingUpdatePtr last_;
  std::vector<std::pair<int, double>> history_;  ///< every (step, loss) since the reset, as drawn
  TrainSwitch switch_;                           ///< Train/Pause, and whether the controls' settings were refused
};

}  // namespace attnlab::ui
