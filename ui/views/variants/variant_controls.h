#pragma once
// The controls of the variants view: which variants to show and their parameters (Performer's m,
// feature kind, orthogonal features, seed, ε, stabiliser; local window, causal mask, temperature,
// head size, top-k, redraws). Edits a copy of the last shown Params and emits it: the view forwards
// it as paramsRequested, so the one parameter struct stays the only state.
#include <QWidget>
#include <map>
#include <string>

#include "core/session/params.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace attnlab::ui {

class VariantControls : public QWidget {
  Q_OBJECT
 public:
  explicit VariantControls(QWidget* parent = nullptr);
  /// Shows `p` without emitting edited(); a slider the user is dragging keeps its position.
  void setParams(const Params& p);
  void setFontScale(double scale);

  QSpinBox* featuresBox() const { return features_; }
  QSlider* windowSlider() const { return window_; }

 signals:
  void edited(const attnlab::Params& p);

 private:
  void buildRows();
  void readWidgets();
  void updateEnabled();

  Params params_;
  bool updating_ = false;
  std::map<std::string, QCheckBox*> names_;
  QSlider *featuresLog_, *window_;
  QSpinBox *features_, *seed_, *dHead_, *topK_, *redraws_;
  QComboBox* kind_;
  QCheckBox *orthogonal_, *stabilize_, *windowOn_, *causal_;
  QDoubleSpinBox *epsilon_, *temperature_;
  QLabel* windowLabel_;
};

}  // namespace attnlab::ui
