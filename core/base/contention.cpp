#include "core/base/contention.h"

#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>

namespace attnlab {

bool ContentionMeter::update(double wallSeconds, double waitedSeconds) {
  if (!started_) {
    started_ = true;
    lastWall_ = wallSeconds;
    lastWaited_ = waitedSeconds;
    return busy_;
  }
  const double dt = wallSeconds - lastWall_;
  if (!(dt >= kWindowSeconds)) return busy_;
  const double waited = std::min(1.0, std::max(0.0, (waitedSeconds - lastWaited_) / dt));
  fraction_ += (1.0 - std::exp(-dt / kTauSeconds)) * (waited - fraction_);
  busy_ = busy_ ? fraction_ > kQuietBelow : fraction_ > kBusyAbove;
  lastWall_ = wallSeconds;
  lastWaited_ = waitedSeconds;
  return busy_;
}

double threadWaitedSeconds() {
  const int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[128];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return -1;
  text[n] = '\0';
  char* end = nullptr;
  std::strtoull(text, &end, 10);  // time on a core, ns
  const char* delay = end;
  const unsigned long long ns = std::strtoull(delay, &end, 10);  // time runnable, waiting for one
  return end == delay ? -1 : static_cast<double>(ns) * 1e-9;
}

namespace {
thread_local ContentionMeter meter;
thread_local bool unreadable = false;
thread_local double lastRead = -1;
}  // namespace

int availableThreads() {
  static const bool off = [] {
    const char* v = std::getenv("ATTNLAB_CONTENTION");
    return v && std::string(v) == "off";
  }();
  const int all = omp_get_max_threads();
  if (all <= 1 || off || unreadable) return all;
  const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  if (lastRead < 0 || now - lastRead >= ContentionMeter::kWindowSeconds) {
    const double waited = threadWaitedSeconds();
    if (waited < 0) {
      unreadable = true;
      return all;
    }
    meter.update(now, waited);
    lastRead = now;
  }
  return meter.contended() ? 1 : all;
}

const ContentionMeter& threadContention() { return meter; }

}  // namespace attnlab
