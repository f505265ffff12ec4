#include "core/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "core/base/errors.h"

namespace attnlab {
namespace {

std::atomic<int> injectedErrno{0};

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw InputError(path + ": " + what + " (" + std::strerror(error) + ")");
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR; returns 0 or the errno of the failure.
int writeAll(int fd, std::string_view bytes) {
  if (const int injected = injectedErrno.exchange(0)) return injected;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// Creates a new file beside `path` (name in `tmp`) for writing, with mode 0666 less the umask as any new file gets:
/// mkstemp's 0600 would need the umask read back, and umask() can only be read by setting it, process-wide, which
/// races with the other threads' files. Returns the descriptor, or -1 with errno.
int createTemporaryBeside(const std::string& path, std::string& tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = path + ".attnlab-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;  // errno is EEXIST
}

/// The folder of `path` ("." for a bare name) and its file name.
std::string folderOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

void failNextAtomicWriteForTesting(int errnoValue) { injectedErrno = errnoValue; }

AtomicFileWriter::AtomicFileWriter(const std::string& path) : path_(path) {
  if (path.empty()) throw InputError("no file name to write to");
  struct stat st {};
  exists_ = ::stat(path.c_str(), &st) == 0;
  mode_ = st.st_mode;
  if (exists_ && S_ISDIR(st.st_mode)) throw InputError(path + ": is a folder, not a file");
  if (exists_ && !S_ISREG(st.st_mode)) {
    // A device, FIFO or socket: renaming a temporary over it would replace the node itself (as root, /dev/full
    // became a regular file). Write to it directly instead, checking every write.
    // O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of hanging; then blocking writes.
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) fail(path, "cannot open for writing", errno);
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    return;
  }
  // Beside the target, so that the rename stays within one filesystem (and so is atomic).
  fd_ = createTemporaryBeside(path, tmp_);
  if (fd_ < 0) fail(path, "cannot write in " + folderOf(path), errno);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFileWriter::failAndDiscard(int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (tmp_.empty()) fail(path_, "writing failed", error);
  ::unlink(tmp_.c_str());
  tmp_.clear();
  fail(path_, exists_ ? "cannot write; the file there is unchanged" : "cannot write", error);
}

void AtomicFileWriter::write(std::string_view bytes) {
  if (fd_ < 0) throw InputError(path_ + ": written after it was closed");
  if (const int error = writeAll(fd_, bytes)) failAndDiscard(error);
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw InputError(path_ + ": written after it was closed");
  int error = 0;
  if (tmp_.empty()) {  // a device: nothing to rename
    error = ::close(fd_) == 0 ? 0 : errno;
    fd_ = -1;
    if (error) fail(path_, "writing failed", error);
    return;
  }
  if (exists_ && ::fchmod(fd_, mode_ & 07777) != 0) error = errno;  // a replaced file keeps its mode
  if (!error && ::fsync(fd_) != 0) error = errno;  // a full disk can surface only here (delayed allocation)
  if (error) failAndDiscard(error);
  const int closed = ::close(fd_) == 0 ? 0 : errno;
  fd_ = -1;
  if (closed) failAndDiscard(closed);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) failAndDiscard(errno);
  tmp_.clear();
}

void writeFileAtomically(const std::string& path, std::string_view bytes) {
  AtomicFileWriter file(path);
  file.write(bytes);
  file.commit();
}

}  // namespace attnlab
