#pragma once
// glibc's malloc serves blocks above its mmap threshold (128 KB at first) with mmap and unmaps them on
// free, so code that allocates and frees activations of a few hundred KB pays page faults for fresh
// zeroed pages every time: a quarter of a training step, and 10 ms of GPT-2 small's 64-token forward
// pass (6,000 faults per pass). The threshold rises by itself only after a large mmapped block is freed,
// which made the speed depend on what happened to be freed while loading.
//
// The price: blocks below 64 MB freed from a long run stay in malloc's arenas (the worker threads' arenas are
// trimmed only at their top), so after a 3,000-token SmolLM2 run and a switch to a small model the process kept
// gigabytes resident (issue 31). returnFreedMemory() gives them back at the moments a large part of the heap was
// just freed: a model switch, a long trace dropped.
#include <cstddef>

namespace attnlab {

/// Blocks below 64 MB come from the heap, and up to 256 MB of freed heap is kept rather than returned
/// to the system. Process-wide, set once; called by the trainer and when a checkpoint model is built.
void keepLargeBlocksInHeap();

/// Returns the free pages of every malloc arena to the system (malloc_trim(0)); a few ms per GB.
void returnFreedMemory();

/// The process's resident memory now, in bytes (/proc/self/statm; 0 where it cannot be read).
std::size_t residentBytes();

}  // namespace attnlab
