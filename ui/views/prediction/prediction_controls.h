#pragma once
// The Prediction view's controls (issue 16): sampling — temperature, top-k, top-p, shown as which bars
// sampling would keep — and Generate: the next token, or N of them, greedy or sampled with a seed, each
// appended to the sentence. Edits leave as a whole PredictionSettings; the view turns them into params.
#include <QWidget>

#include "core/session/prediction_settings.h"

class QCheckBox;
class QDoubleSpinBox;
class QPushButton;
class QSpinBox;

namespace attnlab::ui {

class PredictionControls : public QWidget {
  Q_OBJECT
 public:
  explicit PredictionControls(QWidget* parent = nullptr);
  /// Shows the settings without emitting anything.
  void setSettings(const PredictionSettings& s);
  /// While a generation runs, Generate turns into Stop.
  void setGenerating(bool on);
  /// Generation needs a model that writes the next token; without one the Generate controls hide and
  /// `why` becomes the tooltip.
  void setGenerateEnabled(bool on, const QString& why = {});

 signals:
  void settingsEdited(const attnlab::PredictionSettings& s);
  void generateRequested(int steps);
  void stopRequested();

 private:
  void emitEdit();

  QDoubleSpinBox* temperature_;
  QSpinBox* topK_;
  QDoubleSpinBox* topP_;
  QCheckBox* sample_;
  QSpinBox* seed_;
  QSpinBox* steps_;
  QPushButton* next_;
  QPushButton* generate_;
  QPushButton* stop_;
  PredictionSettings settings_;
  bool updating_ = false;
};

}  // namespace attnlab::ui
