#include "app/cli_progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace attnlab::cli {

StderrProgress::StderrProgress(std::string what)
    : what_(std::move(what)),
      start_(std::chrono::steady_clock::now()),
      last_(start_),
      terminal_(::isatty(STDERR_FILENO) != 0) {}

StderrProgress::~StderrProgress() {
  if (terminal_ && printed_) std::fputc('\n', stderr);
}

void StderrProgress::report(double fraction) {
  const auto now = std::chrono::steady_clock::now();
  if (finished_) return;  // 100 % is said once
  if (!(fraction >= 1.0) && now - last_ < std::chrono::seconds(1)) return;
  finished_ = fraction >= 1.0;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 && fraction >= 1.0 && !printed_) return;  // a quick run says nothing
  char left[48] = "";
  if (fraction > 0.01 && fraction < 1.0)
    std::snprintf(left, sizeof left, ", about %.0f s left", elapsed * (1.0 - fraction) / fraction);
  std::fprintf(stderr, "%s%s %.0f %% (%.0f s%s)%s", terminal_ ? "\r" : "", what_.c_str(),
               std::floor(100.0 * std::min(1.0, std::max(0.0, fraction))), elapsed, left, terminal_ ? "  " : "\n");
  std::fflush(stderr);
  printed_ = true;
}

RunControl StderrProgress::control() {
  RunControl c;
  c.progress = [this](double f) { report(f); };
  return c;
}

}  // namespace attnlab::cli
