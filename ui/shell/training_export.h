#pragma once
// Export of the Training page, which is no TraceView (it trains rather than showing a ComputeResult): a run —
// the window's run so far, a bounded seeded run made for the command line, or a saved model's history.json —
// drawn by a fresh offscreen TrainingView at the requested size (its controls left out: a figure shows the loss
// curve, the probe attention of every head and the score table), or its numbers (loss per step, scores per head).
#include <QImage>
#include <QString>

#include "core/train/train_history.h"
#include "ui/shell/view_export.h"
#include "ui/views/training/encdec_training_panel.h"
#include "ui/views/training/training_worker.h"

namespace attnlab::ui {

/// The export name of the Training page (`attnlab export --view training`, ExportRequest::view).
inline constexpr char kTrainingExportName[] = "training";
/// Steps of the command line's bounded run when none are given: the induction task's first few hundred steps,
/// a few seconds on two cores.
inline constexpr int kDefaultExportTrainSteps = 300;

/// viewNames() and "training": every name `attnlab export --view` accepts (--list-views prints them).
QStringList exportViewNames();

/// Writes `run` (one update holding a whole run) as `request` says: PNG/SVG/PDF of an offscreen Training view
/// laid out at the request's size, or CSV/JSON/NPY of its numbers. Returns an error or "".
QString exportTraining(const TrainingUpdatePtr& run, const ExportRequest& request);

/// The encoder–decoder tab's `run` as a figure (PNG/SVG/PDF, titled with the task and the step) of an offscreen
/// EncDecTrainingPanel laid out at the request's size, its controls left out: the loss and held-out accuracy curves,
/// the decoder heads' cross maps on the probe with their alignment scores, and the probe's tokens; or CSV/JSON/NPY of
/// its numbers (EncDecTrainingPanel::numbers). Returns an error or "".
QString exportEncDecTraining(const EncDecTrainingRun& run, const ExportRequest& request);

/// `run` drawn by an offscreen Training view of `size`, as an image at `scale` (Copy view as image); null when
/// there is no run.
QImage trainingImage(const TrainingUpdatePtr& run, const QSize& size, double scale);

/// A bounded, seeded run of `settings` (`steps` steps from step 0) as an update to draw. Throws InputError for
/// bad settings or a run that diverged.
TrainingUpdatePtr boundedTrainingRun(const TrainSettings& settings, int steps);

/// The saved run of the tiny model in `dir` (its history.json). Throws InputError naming the folder when it is no
/// trained tiny model or has no history.
TrainingUpdatePtr savedTrainingRun(const QString& dir);

}  // namespace attnlab::ui
