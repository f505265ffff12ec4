#pragma once
// The Training view's encoder–decoder page (issue 33): pick a toy translation (reverse or sort the source), press
// Train, and watch — while a 1–2 layer encoder–decoder trains on its own thread — the loss, the held-out accuracy
// and the decoder's cross-attention on a fixed probe, every head of every decoder layer, with the selected head
// framed. For reversal a head that has learnt the task reads the source backwards: its map becomes the
// anti-diagonal. "Use in views" saves the model as a Hugging Face BART folder (tiny_encdec_export.h) and the window
// opens it as any encoder–decoder (source and target, cross view, generation).
#include <QWidget>

#include "core/session/view_numbers.h"
#include "ui/views/training/encdec_training_worker.h"
#include "ui/views/training/train_switch.h"

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnlab::ui {

class AttentionGrid;

/// A run of the page as a figure draws it: the latest update (settings, snapshot on the probe, weights) and every
/// point of the curves since the reset.
struct EncDecTrainingRun {
  EncDecTrainingUpdatePtr latest;                ///< null before the first update (or after refused settings)
  std::vector<std::pair<int, double>> losses;    ///< (step, training loss) of every step
  std::vector<std::pair<int, double>> accuracy;  ///< (step, held-out accuracy) of every update drawn
};

class EncDecTrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit EncDecTrainingPanel(QWidget* parent = nullptr);
  /// The settings the controls show.
  EncDecTrainSettings settings() const;
  void setFontScale(double scale);
  /// Saves the latest weights as a BART folder `dir` (created if missing); returns an error message or "".
  QString saveModel(const QString& dir) const;
  EncDecTrainingWorker* worker() const { return worker_; }
  const EncDecTrainingUpdatePtr& lastUpdate() const { return last_; }
  /// The run drawn so far (what Export figure draws); `latest` null when there is no model.
  EncDecTrainingRun run() const;
  /// Draws `run` in place of what is drawn: the export's offscreen copy of the page.
  void showRun(const EncDecTrainingRun& run);
  /// The numbers behind a figure of `run` (empty matrices when it has no model): "loss" [steps, 1] and "accuracy"
  /// [updates, 1] (rows: the step), "alignment" [decoder heads, 1] (rows "L0H1", the column the task's alignment),
  /// and per decoder head "cross_L0H1" [target tokens, source tokens], the probe's tokens as labels.
  static ViewNumbers numbers(const EncDecTrainingRun& run);
  /// The cross maps the grid draws now: [decoder layer][head], [n_t, n_s].
  const std::vector<std::vector<Eigen::MatrixXf>>& drawnCross() const { return drawn_; }
  /// The selected (framed) head: decoder layer and head.
  std::pair<int, int> selectedHead() const;
  int lossPoints() const;
  QPushButton* trainButton() const { return train_; }
  QPushButton* useButton() const { return use_; }
  QComboBox* taskBox() const { return task_; }
  QComboBox* headBox() const { return head_; }
  QSpinBox* stepsBox() const { return maxSteps_; }
  QSpinBox* seedBox() const { return seed_; }
  QLabel* headline() const { return headline_; }
  QLabel* status() const { return status_; }
  /// The probe's tokens under the maps (their rows and columns).
  QLabel* probeLabel() const { return probe_; }
  AttentionGrid* grid() const { return grid_; }

 signals:
  /// "Use in views": the model was saved into `dir`; the window opens it.
  void useModelRequested(const QString& dir);

 private:
  void resetTrainer();
  void toggleTraining();
  void showUpdate(const EncDecTrainingUpdatePtr& u);
  void redrawGrid();
  void useInViews();
  void chooseSaveFolder();
  void updateButtons();

  EncDecTrainingWorker* worker_;
  QComboBox* task_;
  QSpinBox* encoderLayers_;
  QSpinBox* decoderLayers_;
  QSpinBox* heads_;
  QComboBox* dModel_;
  QSpinBox* maxLength_;
  QDoubleSpinBox* lr_;
  QSpinBox* seed_;
  QSpinBox* maxSteps_;
  QComboBox* head_;
  QPushButton* train_;
  QPushButton* reset_;
  QPushButton* use_;
  QPushButton* save_;
  QLabel* headline_;
  QLabel* status_;
  QLabel* probe_;  ///< the probe's tokens: the maps' rows and columns
  QCustomPlot* plot_;
  AttentionGrid* grid_;
  EncDecTrainingUpdatePtr last_;
  std::vector<std::vector<Eigen::MatrixXf>> drawn_;
  std::vector<std::pair<int, double>> losses_, accuracy_;  ///< the curves since the reset, as drawn
  TrainSwitch switch_;  ///< Train/Pause, and whether the controls' settings were refused
};

}  // namespace attnlab::ui
