// attnlab: with no arguments the graphical program; with a subcommand a headless tool sharing the
// same core and parameter struct (see `attnlab --help`).
#include <QApplication>
#include <QFileInfo>
#include <QTimer>
#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>

#include "app/cli_commands.h"
#include "app/man_page.h"
#include "core/base/errors.h"
#include "core/run/recorded_run.h"
#include "ui/plots/fonts.h"
#include "ui/shell/main_window.h"
#include "ui/shell/session_actions.h"

namespace attnlab {
extern const char* const kProgramVersion;  // app/program_version.cpp, generated at build (cmake/write_version.cmake)
}

namespace {

/// Headless runs: Qt's offscreen platform warns about things that only matter on a screen (no
/// XDG_RUNTIME_DIR, no window-manager size hints). Scripts read stderr for our errors, so those two
/// notes are dropped; every other message goes through.
void quietOffscreenNotes(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (message.contains("propagateSizeHints") || message.startsWith("QStandardPaths: XDG_RUNTIME_DIR")) return;
  std::cerr << qPrintable(qFormatLogMessage(type, context, message)) << "\n";
}

bool hasDisplay() { return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM"); }

int runSubcommand(const attnlab::cli::Subcommand& cmd, int argc, char** argv) {
  using namespace attnlab;
  std::vector<cli::Option> options = cmd.options;
  if (cmd.usesParams) options.insert(options.end(), cli::paramOptions().begin(), cli::paramOptions().end());
  std::unique_ptr<QCoreApplication> app;
  if (cmd.needsGui) {
    // Figures are rendered without a screen: the offscreen platform needs no display server.
    if (!std::getenv("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler(quietOffscreenNotes);
    app = std::make_unique<QApplication>(argc, argv);
    ui::useTextFontFamilies();  // exported figures: CJK and emoji drawn, not boxes
  }
  try {
    const int code = cmd.run(cli::parse(argc, argv, 2, options));
    // Output that did not reach standard output (a closed stream, /dev/full, a full disk behind a redirection)
    // is a failure, not a success with nothing written.
    std::cout.flush();
    if (!std::cout) throw InputError("cannot write to standard output");
    return code;
  } catch (const InputError& e) {
    std::cerr << "attnlab " << cmd.name << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "attnlab " << cmd.name
              << ": error: out of memory (the model or the text is too large for this computer's memory or its "
                 "limit; try fewer tokens or a smaller model)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "attnlab " << cmd.name << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace attnlab;
  // `attnlab --run FILE [SESSION]`: the window shows the run recorded in FILE (attnlab.show from Python) instead of
  // computing it; taken out of argv here so that the rest reads the command line as without it.
  std::string runFile;
  if (argc > 2 && std::string(argv[1]) == "--run") {
    runFile = argv[2];
    for (int i = 3; i <= argc; ++i) argv[i - 2] = argv[i];
    argc -= 2;
  }
  if (argc > 1) {
    const std::string first = argv[1];
    if (first == "--help" || first == "-h" || first == "help") {
      std::cout << cli::helpText();
      return 0;
    }
    if (first == "--version" || first == "-V") {
      std::cout << "attnlab " << kProgramVersion << "\n";
      return 0;
    }
    if (first == "--man") {  // the manual page, for the package (app/man_page.h)
      std::cout << cli::manPage(kProgramVersion);
      return 0;
    }
    if (const cli::Subcommand* cmd = cli::findSubcommand(first)) {
      for (int i = 2; i < argc; ++i)
        if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {  // `attnlab export --help`
          std::cout << cli::subcommandHelp(*cmd);
          return 0;
        }
      return runSubcommand(*cmd, argc, argv);
    }
    // `attnlab FILE`: a session to open (the desktop entry's %f, a double click on a *.attnlab.json).
    if (first.rfind("--", 0) != 0 && (argc > 2 || !QFileInfo(QString::fromStdString(first)).isFile())) {
      std::cerr << "attnlab: unknown command '" << first << "' (see attnlab --help)\n";
      return 2;
    }
  }
  const bool openSessionFile = argc == 2 && std::string(argv[1]).rfind("--", 0) != 0;
  // The window, optionally started on parameters from the command line (`attnlab --model DIR`).
  std::optional<Params> startParams;
  if (argc > 1 && !openSessionFile) {
    try {
      startParams = cli::paramsFromArgs(cli::parse(argc, argv, 1, cli::paramOptions()));
    } catch (const InputError& e) {
      std::cerr << "attnlab: error: " << e.what() << "\n";
      return 1;
    }
  }
  if (!hasDisplay()) {
    std::cerr << "attnlab: no display (DISPLAY and WAYLAND_DISPLAY are unset). Run under a desktop, under "
                 "xvfb-run, or with QT_QPA_PLATFORM=offscreen; `attnlab export` renders figures without one.\n";
    return 1;
  }
  if (!runFile.empty())  // a file that does not read: said in the status bar, every run live
    if (const std::string problem = setRecordedRun(runFile); !problem.empty())
      std::cerr << "attnlab: " << problem << "; showing the live run\n";
  QApplication app(argc, argv);
  QApplication::setOrganizationName("AttentionLab");
  QApplication::setApplicationName("attnlab");
  ui::useTextFontFamilies();
  ui::MainWindow window;
  window.show();
  if (startParams) window.applyParams(*startParams);
  // A session that does not open says why in a message box and leaves the default state.
  if (openSessionFile) window.sessions()->openPath(QString::fromLocal8Bit(argv[1]));
  // For the start-up benchmark (bench/startup.sh): exit once the first result is drawn. The result
  // may already be there when show() returns (it processes events), hence the check after connecting.
  if (std::getenv("ATTNLAB_QUIT_AFTER_FIRST_RESULT")) {
    auto drawnQuit = [&window] {
      window.repaint();
      QTimer::singleShot(0, qApp, &QApplication::quit);
    };
    QObject::connect(window.controller(), &ui::LiveController::resultReady, &app, drawnQuit);
    if (window.controller()->lastResult()) drawnQuit();
  }
  return app.exec();
}
