#pragma once
// Progress of the command line's long runs on standard error (the corpus scan at ~34 s per MB, a Performer curve on
// 2,048 tokens, a rank sweep at n = 4,096): "attnlab heads: corpus 37 % (12 s, about 20 s left)", at most once a
// second, on one line rewritten in place on a terminal and one line per report elsewhere (logs). Standard output stays
// the JSON alone.
#include <chrono>
#include <string>

#include "core/base/run_control.h"

namespace attnlab::cli {

class StderrProgress {
 public:
  /// `what` names the run: "attnlab heads: corpus".
  explicit StderrProgress(std::string what);
  /// Ends the line on a terminal.
  ~StderrProgress();
  StderrProgress(const StderrProgress&) = delete;
  StderrProgress& operator=(const StderrProgress&) = delete;

  /// Reports `fraction` in [0, 1] done (printed when a second has passed since the last report, and at 1).
  void report(double fraction);
  /// A RunControl whose progress goes to report().
  RunControl control();

 private:
  std::string what_;
  std::chrono::steady_clock::time_point start_, last_;
  bool terminal_, printed_ = false, finished_ = false;
};

}  // namespace attnlab::cli
