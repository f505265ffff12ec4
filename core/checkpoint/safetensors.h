#pragma once
// The safetensors format: an 8-byte little-endian header length N, N bytes of JSON
//   {"__metadata__": {"k": "v"}, "<name>": {"dtype": "F32", "shape": [r, c], "data_offsets": [b, e]}, …}
// then the data area; tensor bytes are little-endian and row-major, offsets relative to the data area.
// Every header field is validated before any tensor is touched, so a damaged or hostile file gives a
// message naming the file and the problem, never a crash.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

class MappedFile;

enum class DType { Bool, U8, I8, U16, I16, U32, I32, U64, I64, F16, BF16, F32, F64, F8E4M3, F8E5M2 };

const char* toString(DType t);
int byteSize(DType t);

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;   ///< empty for a scalar
  std::uint64_t begin = 0, end = 0;  ///< byte range inside the data area
  std::int64_t elementCount() const;
  std::string shapeString() const;  ///< "[768, 2304]"
};

struct SafetensorsHeader {
  std::vector<TensorInfo> tensors;              ///< sorted by begin offset
  std::map<std::string, std::string> metadata;  ///< the optional "__metadata__" object
  std::uint64_t dataOffset = 0;                 ///< 8 + N: where the data area starts in the file
};

/// Validates the header of the safetensors bytes [data, data + size) — the whole file, so that offsets
/// can be checked against it. `name` (the file name) starts every error message. Throws InputError.
SafetensorsHeader parseSafetensorsHeader(const unsigned char* data, std::size_t size, const std::string& name);

/// Converts `count` little-endian elements of `dtype` at `src` to float (F32, F16, BF16, F64 and the
/// integer types; bool as 0/1). Throws InputError for the 8-bit float types.
void convertToFloat(DType dtype, const unsigned char* src, std::int64_t count, float* dst);

/// A memory-mapped safetensors file with a validated header.
class SafetensorsFile {
 public:
  /// Throws InputError naming the file and the problem.
  explicit SafetensorsFile(const std::string& path);
  ~SafetensorsFile();

  const std::string& path() const { return path_; }
  const SafetensorsHeader& header() const { return header_; }
  /// nullptr when there is no tensor of that name.
  const TensorInfo* find(const std::string& name) const;
  /// The tensor's raw bytes inside the mapping.
  const unsigned char* bytes(const TensorInfo& t) const;

  /// The tensor as floats, row-major. F32 data that is 4-byte aligned is returned in place (no copy, the
  /// mapping pages in on first touch); other dtypes are converted once into storage owned by this object.
  /// The pointer lives as long as this object. Not thread-safe: call while loading.
  const float* floats(const TensorInfo& t);
  /// Gives back the memory behind floats(t) once the caller has its own copy: converted storage is
  /// freed, mapped pages leave the resident set. Pointers from floats(t) must not be used afterwards.
  void release(const TensorInfo& t);

 private:
  std::string path_;
  std::unique_ptr<MappedFile> file_;
  SafetensorsHeader header_;
  std::map<std::string, std::size_t> byName_;
  std::map<std::string, std::vector<float>> converted_;
};

}  // namespace attnlab
