#pragma once
// Independent jobs on the OpenMP threads, with the RunControl rules of the rest of the core.
#include <atomic>
#include <exception>
#include <mutex>

#include <omp.h>

#include "core/base/run_control.h"

namespace attnlab {

/// Runs job(0) … job(count − 1) in parallel (dynamic schedule). The cancel flag is checked after each
/// job; progress (finished/count) is reported from the calling thread only, so the callback need not be
/// thread-safe. The first exception (Cancelled included) ends the remaining jobs and is rethrown here:
/// exceptions must not cross an OpenMP region's boundary.
template <typename Job>
void parallelJobs(int count, const RunControl& control, Job job) {
  std::exception_ptr error;
  std::mutex errorMutex;
  std::atomic<bool> failed{false};
  std::atomic<int> done{0};
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < count; ++i) {
    if (failed.load()) continue;
    try {
      job(i);
      const int finished = ++done;
      if (omp_get_thread_num() == 0)
        control.checkpoint(static_cast<double>(finished) / count);
      else if (control.cancel && control.cancel->load())
        throw Cancelled();
    } catch (...) {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (!error) error = std::current_exception();
      failed.store(true);
    }
  }
  if (error) std::rethrow_exception(error);
  control.checkpoint(1.0);
}

/// parallelJobs when `parallel`, else the same jobs one after another on the calling thread, with the
/// same checkpoints: for small work, where waking the other threads costs more than the jobs (a 64²
/// spectrum took 8 ms on two threads instead of 1 ms on one).
template <typename Job>
void maybeParallelJobs(bool parallel, int count, const RunControl& control, Job job) {
  if (parallel) {
    parallelJobs(count, control, job);
    return;
  }
  for (int i = 0; i < count; ++i) {
    job(i);
    control.checkpoint(static_cast<double>(i + 1) / count);
  }
  control.checkpoint(1.0);
}

}  // namespace attnlab
