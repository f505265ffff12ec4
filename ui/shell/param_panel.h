#pragma once
// The parameter panel: every field of the built-in model's config and the selection, each with a
// one-sentence tooltip. It holds no parameters of its own: on an edit the window writes the panel's fields
// into the parameters of that moment (applyTo), so the typed sentence and every other field stay theirs.
// With a checkpoint loaded the built-in model's settings are hidden and the checkpoint's card (checkpoint_card.h:
// family, sizes, kv heads, windows, dtype, positions, files, memory) takes their place above the selection, which
// still applies; the dock narrows to the card and widens again for the built-in model's settings.
#include <QWidget>
#include <memory>

#include "core/model/model.h"
#include "core/session/params.h"
#include "ui/views/common/compute_result.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QSpinBox;

namespace attnlab::ui {

class CheckpointCard;

class ParamPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ParamPanel(QWidget* parent = nullptr);
  /// Shows `p` without emitting edited.
  void setParams(const Params& p);
  /// `p` with the fields the panel edits set from its widgets: the model's fields only for the
  /// built-in model (a checkpoint's sizes shown greyed out are not the built-in model's settings).
  Params applyTo(Params p) const;
  /// Limits the layer/head selectors to what the current model has.
  void setModelShape(const ModelInfo& info);
  /// The model of the latest result, opened from `modelDir`: a checkpoint's card is read from it when the model is
  /// new, and its resident memory re-read on every call. The built-in model ("" dir) has no card.
  void showModel(const std::shared_ptr<const Model>& model, const std::string& modelDir);
  /// A failed run (MainWindow shows the last valid result): when it was the first run of the checkpoint asked for,
  /// the card no longer says "loading" but shows the model still in force (`inForce`, the controller's last valid
  /// result) under a line saying the folder did not open and why; a model that opened but refused the text says so.
  void showFailedRun(const ComputeResult& failed, const ResultPtr& inForce);
  /// Whether the model shown masks causally (the trace's own flag): a checkpoint's greyed "causal mask" box shows it.
  void setModelCausal(bool causal);

 signals:
  /// A widget was changed by the user: the window calls applyTo on the current parameters.
  void edited();

 private:
  void changed();
  void updateEnabled();
  /// The dock holding the panel (a scroll area in a dock of a main window) takes the width of what is shown: the
  /// built-in model's settings, or the narrower card.
  void fitDock();
  /// The teaching ladder's check boxes show what is in force: "scale" unchecked below rung 3 (nothing is scaled), the
  /// mask checked at rung 5 (the rung is the mask) and for a causal checkpoint. The user's own choices are kept
  /// apart (storedScale_, storedCausal_), so a rung that ignores them does not erase them.
  void showLadderState();

  bool builtin_ = true;
  bool fittedBuiltin_ = true;                       ///< what the dock's width was last fitted to
  std::weak_ptr<const Model> cardModel_;            ///< the model the card shows (expired: none)
  std::string cardDir_;                             ///< the folder it was opened from
  std::string paramsDir_;                           ///< Params::modelDir of the last setParams
  bool storedScale_ = true, storedCausal_ = false;  ///< ModelConfig::scale and ::causal as the user set them
  bool modelCausal_ = false;                        ///< the shown trace masks causally
  int shownMode_ = 0;                               ///< the rung before the last change of the mode box
  QComboBox *mode_, *position_, *norm_, *activation_;
  QSpinBox *dModel_, *heads_, *layers_, *seed_, *layer_, *head_;
  QCheckBox *scale_, *causal_, *skip_, *mlp_, *lowercase_;
  QGroupBox* modelBox_;   ///< the built-in model's settings, hidden while a checkpoint is open
  CheckpointCard* card_;  ///< shown instead of them
};

}  // namespace attnlab::ui
