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

 private:
  std::string path_;
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace attnlab
