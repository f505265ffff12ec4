#pragma once
// Undo/redo of parameter changes (QUndoStack), so a teacher can step back after a mis-drag. Each
// edit records the parameters before and after; consecutive edits of the same fields within a
// second merge into one step (typing a sentence, dragging a spin box). Undo and redo hand the
// parameters to `apply`, which must not record them again.
#include <QElapsedTimer>
#include <QUndoStack>
#include <functional>
#include <string>

#include "core/params.h"

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

}  // namespace attnlab::ui
