#include "core/compute/heap_policy.h"

#include <malloc.h>

namespace attnlab {

void keepLargeBlocksInHeap() {
  static const bool done = [] {
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    return true;
  }();
  (void)done;
}

}  // namespace attnlab
