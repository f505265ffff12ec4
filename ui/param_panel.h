#pragma once
// The parameter panel: every field of the built-in model's config and the selection, each with a
// one-sentence tooltip. Emits the whole edited Params; the window forwards it to the controller.
#include <QWidget>

#include "core/params.h"

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace attnlab::ui {

class ParamPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ParamPanel(QWidget* parent = nullptr);
  /// Shows `p` without emitting paramsEdited.
  void setParams(const Params& p);
  Params params() const { return params_; }
  /// Limits the layer/head selectors to what the current model has.
  void setModelShape(int layers, int heads);

 signals:
  void paramsEdited(const attnlab::Params& p);

 private:
  void readWidgets();
  void updateEnabled();

  Params params_;
  QComboBox *mode_, *position_, *norm_, *activation_;
  QSpinBox *dModel_, *heads_, *layers_, *seed_, *layer_, *head_;
  QCheckBox *scale_, *causal_, *skip_, *mlp_, *lowercase_;
};

}  // namespace attnlab::ui
