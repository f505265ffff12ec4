#pragma once
// The parameter panel: every field of the built-in model's config and the selection, each with a
// one-sentence tooltip. It holds no parameters of its own: on an edit the window writes the panel's fields
// into the parameters of that moment (applyTo), so the typed sentence and every other field stay theirs.
// With a checkpoint loaded the model fields are greyed out, the size fields show the checkpoint's real
// sizes, and a note naming the checkpoint says the built-in model's other settings do not apply.
#include <QWidget>

#include "core/model/model.h"
#include "core/session/params.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace attnlab::ui {

class ParamPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ParamPanel(QWidget* parent = nullptr);
  /// Shows `p` without emitting edited.
  void setParams(const Params& p);
  /// `p` with the fields the panel edits set from its widgets: the model's fields only for the
  /// built-in model (a checkpoint's sizes shown greyed out are not the built-in model's settings).
  Params applyTo(Params p) const;
  /// Limits the layer/head selectors to what the current model has; a loaded checkpoint's d_model,
  /// heads and layers are shown in the greyed-out fields.
  void setModelShape(const ModelInfo& info);
  /// Whether the model shown masks causally (the trace's own flag): a checkpoint's greyed "causal mask" box shows it.
  void setModelCausal(bool causal);

 signals:
  /// A widget was changed by the user: the window calls applyTo on the current parameters.
  void edited();

 private:
  void changed();
  void updateEnabled();
  void showCheckpointSizes();
  /// The teaching ladder's check boxes show what is in force: "scale" unchecked below rung 3 (nothing is scaled), the
  /// mask checked at rung 5 (the rung is the mask) and for a causal checkpoint. The user's own choices are kept
  /// apart (storedScale_, storedCausal_), so a rung that ignores them does not erase them.
  void showLadderState();

  bool builtin_ = true;
  ModelInfo checkpoint_;                            ///< the last loaded checkpoint's sizes (layers 0: none yet)
  bool storedScale_ = true, storedCausal_ = false;  ///< ModelConfig::scale and ::causal as the user set them
  bool modelCausal_ = false;                        ///< the shown trace masks causally
  int shownMode_ = 0;                               ///< the rung before the last change of the mode box
  QComboBox *mode_, *position_, *norm_, *activation_;
  QSpinBox *dModel_, *heads_, *layers_, *seed_, *layer_, *head_;
  QCheckBox *scale_, *causal_, *skip_, *mlp_, *lowercase_;
  QFormLayout* modelForm_;
  QLabel* checkpointNote_;  ///< "gpt2 (gpt2 checkpoint): its own architecture…", over the greyed rows
};

}  // namespace attnlab::ui
