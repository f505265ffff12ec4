#pragma once
// glibc's malloc serves blocks above its mmap threshold (128 KB at first) with mmap and unmaps them on
// free, so code that allocates and frees activations of a few hundred KB pays page faults for fresh
// zeroed pages every time: a quarter of a training step, and 10 ms of GPT-2 small's 64-token forward
// pass (6,000 faults per pass). The threshold rises by itself only after a large mmapped block is freed,
// which made the speed depend on what happened to be freed while loading.

namespace attnlab {

/// Blocks below 64 MB come from the heap, and up to 256 MB of freed heap is kept rather than returned
/// to the system. Process-wide, set once; called by the trainer and when a checkpoint model is built.
void keepLargeBlocksInHeap();

}  // namespace attnlab
