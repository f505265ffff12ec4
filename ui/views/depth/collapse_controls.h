#pragma once
// The controls of the rank-collapse views: depth, heads, d_model, tokens, init, MLP gain, seeds, norm,
// inputs, attention variant, and one toggle per configuration (in its curve's colour). Emits the edited
// settings; the view turns them into a parameter edit (paramsRequested), so they live in Params.
#include <QWidget>
#include <map>

#include "core/collapse/collapse_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace attnlab::ui {

class CollapseControls : public QWidget {
  Q_OBJECT
 public:
  explicit CollapseControls(QWidget* parent = nullptr);
  /// Shows `s` without emitting settingsEdited.
  void setSettings(const CollapseSettings& s);
  void setFontScale(double scale);
  QCheckBox* configToggle(StackConfig c) const { return toggles_.at(c); }
  QSpinBox* depthBox() const { return depth_; }
  QDoubleSpinBox* mlpGainBox() const { return mlpGain_; }

 signals:
  void settingsEdited(const attnlab::CollapseSettings& s);

 private:
  void readWidgets();

  CollapseSettings settings_;
  bool updating_ = false;
  QSpinBox *depth_, *heads_, *dModel_, *tokens_, *seeds_;
  QComboBox *init_, *norm_, *input_, *variant_;
  QDoubleSpinBox* mlpGain_;
  std::map<StackConfig, QCheckBox*> toggles_;
};

}  // namespace attnlab::ui
