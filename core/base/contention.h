#pragma once
// Fewer threads while the cores are shared with other work. A parallel region on 2 threads beside other busy
// programs waits at its barrier for whichever of its threads the scheduler has put aside, time-slice after
// time-slice: the SmolLM2-shape 64-token forward took 1,119 ms on 2 threads next to one busy loop per core,
// 321 ms on one (issue 31). The sign is cheap to read and direct: how long the calling thread itself was
// runnable but waiting for a core (run_delay, the second field of /proc/thread-self/schedstat). Over 25 % of
// the wall time, smoothed over ~100 ms, the regions of the forward pass run on one thread; they go back to all
// threads when it falls under 10 % (one thread beside one busy loop per core of a 2-core machine waits ~1/3,
// two threads ~1/2). Lower thresholds caught the short waits of a shared but mostly idle machine (5–8 %) and
// gave up the second core for nothing.

namespace attnlab {

/// Smoothed fraction of wall time a thread waited for a core, from cumulative readings. Pure: the tests feed it.
class ContentionMeter {
 public:
  static constexpr double kWindowSeconds = 0.010;  ///< readings closer than this are skipped
  static constexpr double kTauSeconds = 0.100;     ///< smoothing time constant
  static constexpr double kBusyAbove = 0.25, kQuietBelow = 0.10;

  /// `wallSeconds`, `waitedSeconds`: the clock and the thread's total time spent waiting for a core, both
  /// cumulative. Returns contended().
  bool update(double wallSeconds, double waitedSeconds);
  bool contended() const { return busy_; }
  double waitFraction() const { return fraction_; }

 private:
  double lastWall_ = 0, lastWaited_ = 0, fraction_ = 0;
  bool started_ = false, busy_ = false;
};

/// The calling thread's total time waiting for a core, in seconds, or a negative value when the kernel does
/// not say (no /proc/thread-self/schedstat).
double threadWaitedSeconds();

/// omp_get_max_threads(), or 1 while the calling thread's meter says its cores are shared (each thread that
/// starts parallel regions has its own meter, read at most every 10 ms). For the regions of a forward pass.
/// ATTNLAB_CONTENTION=off in the environment: always omp_get_max_threads(), as before issue 31.
int availableThreads();

/// The calling thread's meter (for the benches' report).
const ContentionMeter& threadContention();

}  // namespace attnlab
