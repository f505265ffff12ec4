#pragma once
// A read-only memory mapping of a whole file (POSIX mmap): checkpoint weights are paged in by the
// kernel on first touch and shared with the page cache, so opening a 500 MB checkpoint costs no copy.
#include <cstddef>
#include <string>

namespace attnlab {

class MappedFile {
 public:
  /// Maps `path`; throws InputError naming the file when it cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  /// Drops the whole pages inside [p, p + bytes) from this process's resident memory (madvise
  /// MADV_DONTNEED; they stay in the page cache and page in again if read). For data that has been
  /// copied elsewhere, e.g. weights repacked at load.
  void release(const void* p, std::size_t bytes) const;

 private:
  std::string path_;
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace attnlab
