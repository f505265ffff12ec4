#pragma once
// What the worker hands to the views: the parameters it ran, the model and its Trace. Immutable and
// shared, so views on the GUI thread read it while the worker computes the next one.
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <memory>

#include "core/pipeline.h"

namespace attnlab::ui {

struct ComputeResult {
  Params params;
  std::shared_ptr<const PipelineResult> run;  ///< null when the run failed
  QString error;                              ///< what went wrong, for the status bar
  bool cancelled = false;                     ///< stopped by its cancel flag: nothing to show
  double forwardMs = 0;
  quint64 generation = 0;

  bool ok() const { return run != nullptr; }
  const Trace& trace() const { return run->trace; }
  QStringList tokenLabels() const;
  /// The selected layer/head clamped into the trace's range.
  int layer() const;
  int head() const;
};

using ResultPtr = std::shared_ptr<const ComputeResult>;

}  // namespace attnlab::ui

Q_DECLARE_METATYPE(attnlab::ui::ResultPtr)
