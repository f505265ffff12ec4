#include <QApplication>
#include <iostream>

#include "app/cli_commands.h"
#include "core/errors.h"
#include "core/pipeline.h"
#include "ui/figure_export.h"
#include "ui/live_controller.h"
#include "ui/view_factory.h"

namespace attnlab::cli {

int runExport(const Args& args) {
  if (args.has("list-views")) {
    for (const QString& name : ui::viewNames()) std::cout << name.toStdString() << "\n";
    return 0;
  }
  if (!args.has("view")) throw InputError("export needs --view NAME (see --list-views)");
  if (!args.has("out")) throw InputError("export needs --out FILE");
  const QString viewName = QString::fromStdString(args.value("view"));
  const QString out = QString::fromStdString(args.value("out"));
  const QString format = args.has("format") ? QString::fromStdString(args.value("format")) : ui::formatFromPath(out);
  if (format != "png" && format != "svg" && format != "pdf")
    throw InputError("cannot tell the figure format of '" + out.toStdString() +
                     "': use a .png, .svg or .pdf name, or --format");
  const int width = args.intValue("width", 1200, 100, 10000), height = args.intValue("height", 900, 100, 10000);
  const double scale = args.doubleValue("scale", 1.0, 0.1, 16.0);

  const Params p = paramsFromArgs(args);
  const ui::ResultPtr result = ui::LiveController::compute(p, nullptr, {});
  if (!result->ok()) throw InputError(result->error.toStdString());
  checkSelection(p, result->trace());

  std::unique_ptr<ui::TraceView> view(ui::createView(viewName));
  if (!view) throw InputError("unknown view '" + viewName.toStdString() + "' (see attnlab export --list-views)");
  view->setAttribute(Qt::WA_DontShowOnScreen);
  view->resize(width, height);
  view->show();  // lays the view out; offscreen, nothing appears
  view->showResult(result);
  QApplication::processEvents();
  view->waitForAnalyses();  // views with background analyses draw them before the figure is taken
  const QString error = ui::exportWidget(view.get(), out, format, scale, view->displayName());
  if (!error.isEmpty()) throw InputError(error.toStdString());
  return 0;
}

}  // namespace attnlab::cli
