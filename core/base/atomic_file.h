#pragma once
// The one way the program writes a file (figures, CSV/JSON/NPY numbers, dumps, predictions, sessions, trained
// checkpoints): the bytes go to a temporary file beside the target, every write, the flush to disk and the close
// are checked, and only then is the temporary renamed over the target. A full disk, a missing permission or a
// vanished folder leaves the old file as it was and throws InputError naming the path and the reason (strerror:
// "No space left on device", "Permission denied" …). A target that exists and is not a regular file (/dev/full,
// /dev/stdout, a FIFO) is written directly, never replaced by a rename, and its write errors are reported too.
#include <sys/types.h>

#include <string>
#include <string_view>

namespace attnlab {

/// Writes `bytes` to `path` as described above. Throws InputError naming `path` on any failure.
void writeFileAtomically(const std::string& path, std::string_view bytes);

/// The same writing when the bytes come in pieces (a dump of a long input, never held whole): the constructor opens
/// the temporary file (or the device), write() appends, commit() flushes, closes and renames. Destroyed without
/// commit() (an error on the way), the temporary file is removed and the old file stays as it was.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// Throws InputError naming the path (and removes the temporary file) when the write fails.
  void write(std::string_view bytes);
  /// Makes the file appear under its name; throws InputError as writeFileAtomically does.
  void commit();

 private:
  [[noreturn]] void failAndDiscard(int error);

  std::string path_;
  std::string tmp_;  ///< empty when a device is written directly
  int fd_ = -1;
  bool exists_ = false;
  mode_t mode_ = 0;  ///< the replaced file's mode, kept
};

/// Tests only: the next writeFileAtomically fails its first write with `errnoValue` (e.g. ENOSPC), as a full
/// disk would, after creating the temporary file. 0 clears it.
void failNextAtomicWriteForTesting(int errnoValue);

}  // namespace attnlab
