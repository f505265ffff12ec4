#pragma once
// Undo/redo of parameter changes (QUndoStack), so a teacher can step back after a mis-drag. Each
// edit records the parameters before and after; consecutive edits of the same fields within a
// second merge into one step (typing a sentence, dragging a spin box). Undo and redo hand the
// parameters to `apply`, which must not record them again. Edit ▸ Undo names the step as the panel
// does: "Undo head 2 → 3", "Undo mode: multi-head", "Undo typing", "Undo head and layer".
#include <QElapsedTimer>
#include <QString>
#include <QUndoStack>
#include <functional>
#include <string>

#include "core/session/params.h"

namespace attnlab::ui {

class ParamHistory : public QObject {
  Q_OBJECT
 public:
  explicit ParamHistory(std::function<void(const Params&)> apply, QObject* parent = nullptr);

  /// Records the change before → after (nothing when they are equal).
  void record(const Params& before, const Params& after);
  QUndoStack* stack() const { return stack_; }
  /// True while undo/redo applies parameters (the window then does not record).
  bool applying() const { return applying_; }

 private:
  friend class ParamCommand;
  void applyFromHistory(const Params& p);

  std::function<void(const Params&)> apply_;
  QUndoStack* stack_;
  bool applying_ = false;
};

/// Which top-level parameter fields differ, e.g. "sentence" or "model.heads,model.layers".
std::string changedFields(const Params& a, const Params& b);
/// The change a → b in the panel's words: "head 2 → 3", "mode: multi-head", "causal mask on", "typing";
/// several fields by name: "head and layer", "d_model, heads and layers". Empty when nothing changed.
QString describeChange(const Params& a, const Params& b);
/// `edited` was made from `base` (a view edits a copy of its result's parameters); returns `onto` (the
/// parameters of this moment: the typed sentence, the panel's settings) with only the fields that
/// `edited` changed from `base`. So an edit never brings back an older sentence or setting.
Params rebaseEdit(const Params& base, const Params& edited, const Params& onto);

}  // namespace attnlab::ui
