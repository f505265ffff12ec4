#pragma once
#include <atomic>
#include <functional>

#include "core/base/errors.h"

namespace attnlab {

/// What a long computation checks between steps: a cancel flag owned by the caller and an optional
/// progress callback (fraction in [0, 1]). Both may be absent.
struct RunControl {
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;

  void checkpoint(double fraction) const {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    if (progress) progress(fraction);
  }

  /// The same control for one stage of a longer job: the stage's fractions 0…1 are reported as
  /// from…to of the whole.
  RunControl part(double from, double to) const {
    RunControl r;
    r.cancel = cancel;
    if (progress) r.progress = [p = progress, from, to](double f) { p(from + (to - from) * f); };
    return r;
  }
};

}  // namespace attnlab
