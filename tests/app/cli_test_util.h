#pragma once
// Runs the built `attnlab` program as a separate process, as scripts do, for the command-line tests.
#include <QByteArray>
#include <QProcess>
#include <QStringList>

struct AppRun {
  int code;  ///< exit status; −1 when the program did not finish in time
  QByteArray out, err;
};

/// `attnlab ARGS` with `input` on standard input; gives up after `timeoutMs` (err "timeout").
inline AppRun runApp(const QStringList& args, const QByteArray& input = {}, int timeoutMs = 60000) {
  QProcess p;
  p.setProgram(ATTNLAB_APP_BINARY);
  p.setArguments(args);
  p.start();
  p.write(input);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) return {-1, {}, "timeout"};
  return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}
