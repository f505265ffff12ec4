#include "core/compute/heap_policy.h"

#include <malloc.h>
#include <unistd.h>

#include <fstream>

namespace attnlab {

void keepLargeBlocksInHeap() {
  static const bool done = [] {
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    return true;
  }();
  (void)done;
}

void returnFreedMemory() { malloc_trim(0); }

std::size_t residentBytes() {
  std::ifstream in("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace attnlab
