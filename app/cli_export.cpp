#include <QApplication>
#include <QDir>
#include <iostream>

#include "app/cli_commands.h"
#include "core/base/errors.h"
#include "core/run/pipeline.h"
#include "core/run/recorded_run.h"
#include "core/train/train_history.h"
#include "ui/plots/view_style.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/training_export.h"
#include "ui/shell/view_export.h"
#include "ui/shell/view_factory.h"

namespace attnlab::cli {
namespace {

QString formatOf(const Args& args, const QString& out, bool batch) {
  if (args.has("format")) {
    const QString f = QString::fromStdString(args.value("format")).toLower();
    if (!ui::exportFormats().contains(f))
      throw InputError("unknown --format '" + f.toStdString() + "' (use png, svg, pdf, csv, json or npy)");
    return f;
  }
  if (batch) return "png";  // --out names a folder: one PNG per head unless told otherwise
  const QString f = ui::exportFormatFromPath(out);
  if (f.isEmpty())
    throw InputError("cannot tell the figure format of '" + out.toStdString() +
                     "': use a .png, .svg, .pdf, .csv, .json or .npy name, or --format");
  return f;
}

/// Size from --preset NAME, --width/--height (pixels) or --width-cm/--height-cm (with --dpi for PNG).
ui::FigureSize sizeOf(const Args& args) {
  ui::FigureSize s;
  if (args.has("preset")) {
    if (args.has("width") || args.has("height") || args.has("width-cm") || args.has("height-cm"))
      throw InputError("give --preset or a size (--width/--height, --width-cm/--height-cm), not both");
    const QString name = QString::fromStdString(args.value("preset"));
    const std::optional<ui::FigureSize> preset = ui::figurePreset(name, args.doubleValue("dpi", 300, 10, 2400));
    if (!preset)
      throw InputError("unknown --preset '" + name.toStdString() + "' (use " +
                       ui::figurePresetNames().join("|").toStdString() + ")");
    return *preset;
  }
  if (args.has("width-cm") || args.has("height-cm")) {
    if (args.has("width") || args.has("height")) throw InputError("give the size in pixels or in cm, not both");
    s.unit = ui::FigureSize::Unit::Centimetres;
    s.width = args.doubleValue("width-cm", 16, 1, 200);
    s.height = args.doubleValue("height-cm", 12, 1, 200);
    s.dpi = args.doubleValue("dpi", 300, 10, 2400);
  } else {
    s.width = args.intValue("width", 1200, 100, 10000);
    s.height = args.intValue("height", 900, 100, 10000);
  }
  return s;
}

/// The run `export --view training` draws: the history of --model DIR (a model the Training view or `attnlab train
/// --save` saved), else a bounded run of --task for --train-steps steps from the trainer's defaults (the induction
/// task, 2 layers of 4 heads, seed 1), --seed/--layers/--heads/--d-model given on the command line taking over.
ui::TrainingUpdatePtr trainingRunOf(const Args& args) {
  // Only a --model given here: a session's model (--params) is the other views' model, not a training run.
  if (args.has("model")) {
    if (args.has("task") || args.has("train-steps"))
      throw InputError("--task and --train-steps train a fresh run; --model draws the saved model's own history");
    return ui::savedTrainingRun(QString::fromStdString(args.value("model")));
  }
  TrainSettings s;
  s.task = parseTrainTask(args.value("task", toString(s.task)));
  if (args.has("seed")) s.model.seed = static_cast<uint64_t>(args.intValue("seed", 1, 0, 2147483647));
  s.model.layers = args.intValue("layers", s.model.layers, 1, 4);
  s.model.heads = args.intValue("heads", s.model.heads, 1, 8);
  s.model.dModel = args.intValue("d-model", s.model.dModel, 1, 128);
  const int steps = args.intValue("train-steps", ui::kDefaultExportTrainSteps, 0, 100000);
  return ui::boundedTrainingRun(s, steps);
}

}  // namespace

int runExport(const Args& args) {
  if (args.has("list-views")) {
    for (const QString& name : ui::exportViewNames()) std::cout << name.toStdString() << "\n";
    return 0;
  }
  if (!args.has("out")) throw InputError("export needs --out FILE (or --out DIR/ with --all-heads)");
  const Params p = paramsFromArgs(args);
  // A session or params file names its view: `attnlab export --params talk.json --out fig.pdf`.
  if (!args.has("view") && !args.has("params")) throw InputError("export needs --view NAME (see --list-views)");
  const QString viewName = QString::fromStdString(args.has("view") ? args.value("view") : p.selection.view);
  const bool batch = args.has("all-heads");
  const QString out = QString::fromStdString(args.value("out"));

  ui::ExportRequest request;
  request.view = viewName;
  request.format = formatOf(args, out, batch);
  request.size = sizeOf(args);
  request.pngScale = args.doubleValue("scale",
                                      args.has("dpi") && request.size.unit == ui::FigureSize::Unit::Pixels
                                          ? args.doubleValue("dpi", 96, 10, 2400) / 96.0
                                          : 1.0,
                                      0.1, 16.0);
  request.dpi = request.size.unit == ui::FigureSize::Unit::Pixels ? args.doubleValue("dpi", 0, 10, 2400) : 0;
  request.fontScale = args.doubleValue("font-scale", 1.0, 0.25, 8.0);
  request.matrix = QString::fromStdString(args.value("matrix"));
  if (!ui::exportViewNames().contains(viewName))
    throw InputError("unknown view '" + viewName.toStdString() + "' (see attnlab export --list-views)");
  if ((args.has("task") || args.has("train-steps")) && viewName != ui::kTrainingExportName)
    throw InputError("--task and --train-steps are for --view training");

  if (viewName == ui::kTrainingExportName) {  // the Training page trains instead of running the sentence
    if (batch) throw InputError("--all-heads exports the heads of the sentence's views, not the training view");
    request.path = out;
    const QString error = ui::exportTraining(trainingRunOf(args), request);
    if (!error.isEmpty()) throw InputError(error.toStdString());
    return 0;
  }

  ui::ViewStyle::instance().setDisplay(p.display);  // the session's colour map and theme
  // A run recorded from Python (attnlab.figure with hooks): exported as recorded, or refused naming why not.
  if (args.has("run")) {
    const std::string problem = setRecordedRun(args.value("run"));
    if (!problem.empty()) throw InputError(problem);
  }
  const ui::ResultPtr result = ui::LiveController::compute(p, nullptr, {});
  if (!result->ok()) throw InputError(result->error.toStdString());
  if (args.has("run")) {
    const auto* recorded = dynamic_cast<const RecordedRunModel*>(result->run->model.get());
    if (!recorded || !recorded->isRecorded(result->trace()))
      throw InputError("--run " + args.value("run") + ": " + recordedRunNote(*result->run, p));
  }

  if (!batch) {
    checkSelection(p, result->trace());
    request.path = out;
    const QString error = ui::exportView(result, request);
    if (!error.isEmpty()) throw InputError(error.toStdString());
    return 0;
  }
  // Batch: one file per layer and head, named VIEW_L<layer>_H<head>.<format>.
  QDir dir(out);
  if (!dir.exists() && !QDir().mkpath(out)) throw InputError("cannot create the folder '" + out.toStdString() + "'");
  const Trace& t = result->trace();
  for (int l = 0; l < t.layerCount(); ++l)
    for (int h = 0; h < t.headCount(); ++h) {
      request.path = dir.filePath(QString("%1_L%2_H%3.%4").arg(viewName).arg(l).arg(h).arg(request.format));
      const QString error = ui::exportView(ui::withSelection(result, l, h), request);
      if (!error.isEmpty()) throw InputError(error.toStdString());
      std::cout << request.path.toStdString() << "\n";
    }
  return 0;
}

}  // namespace attnlab::cli
