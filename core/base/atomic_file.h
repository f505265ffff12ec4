#pragma once
// The one way the program writes a file (figures, CSV/JSON/NPY numbers, dumps, predictions, sessions, trained
// checkpoints): the bytes go to a temporary file beside the target, every write, the flush to disk and the close
// are checked, and only then is the temporary renamed over the target. A full disk, a missing permission or a
// vanished folder leaves the old file as it was and throws InputError naming the path and the reason (strerror:
// "No space left on device", "Permission denied" …). A target that exists and is not a regular file (/dev/full,
// /dev/stdout, a FIFO) is written directly, never replaced by a rename, and its write errors are reported too.
#include <string>
#include <string_view>

namespace attnlab {

/// Writes `bytes` to `path` as described above. Throws InputError naming `path` on any failure.
void writeFileAtomically(const std::string& path, std::string_view bytes);

/// Tests only: the next writeFileAtomically fails its first write with `errnoValue` (e.g. ENOSPC), as a full
/// disk would, after creating the temporary file. 0 clears it.
void failNextAtomicWriteForTesting(int errnoValue);

}  // namespace attnlab
