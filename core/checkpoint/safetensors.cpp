#include "core/checkpoint/safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/base/mapped_file.h"

namespace attnlab {
namespace {

// The format's own limit (safetensors' MAX_HEADER_SIZE): refuse before reading a giant "header".
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

struct DTypeName {
  const char* name;
  DType type;
  int size;
};
constexpr DTypeName kDTypes[] = {
    {"BOOL", DType::Bool, 1}, {"U8", DType::U8, 1},          {"I8", DType::I8, 1},         {"U16", DType::U16, 2},
    {"I16", DType::I16, 2},   {"U32", DType::U32, 4},        {"I32", DType::I32, 4},       {"U64", DType::U64, 8},
    {"I64", DType::I64, 8},   {"F16", DType::F16, 2},        {"BF16", DType::BF16, 2},     {"F32", DType::F32, 4},
    {"F64", DType::F64, 8},   {"F8_E4M3", DType::F8E4M3, 1}, {"F8_E5M2", DType::F8E5M2, 1}};

std::uint64_t readLe64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

DType parseDType(const nlohmann::json& j, const std::string& where) {
  if (!j.is_string()) throw InputError(where + ": \"dtype\" is not a string");
  const std::string s = j.get<std::string>();
  for (const DTypeName& d : kDTypes)
    if (s == d.name) return d.type;
  throw InputError(where + ": unknown dtype \"" + s + "\"");
}

std::uint64_t parseOffset(const nlohmann::json& j, const std::string& where) {
  if (!j.is_number_unsigned()) throw InputError(where + ": \"data_offsets\" must hold two non-negative integers");
  return j.get<std::uint64_t>();
}

/// One tensor entry; checks its own fields and its byte range against the data area.
TensorInfo parseTensor(const std::string& key, const nlohmann::json& j, std::uint64_t dataSize,
                       const std::string& file) {
  const std::string where = file + ": tensor \"" + key + "\"";
  if (!j.is_object()) throw InputError(where + " is not a JSON object");
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!j.contains(field)) throw InputError(where + " has no \"" + field + "\"");
  TensorInfo t;
  t.name = key;
  t.dtype = parseDType(j["dtype"], where);
  const nlohmann::json& shape = j["shape"];
  if (!shape.is_array()) throw InputError(where + ": \"shape\" is not an array");
  std::uint64_t count = 1;
  for (const nlohmann::json& dim : shape) {
    if (!dim.is_number_unsigned()) throw InputError(where + ": \"shape\" must hold non-negative integers");
    const std::uint64_t d = dim.get<std::uint64_t>();
    if (d > (std::uint64_t(1) << 62) || __builtin_mul_overflow(count, d, &count))
      throw InputError(where + ": shape " + shape.dump() + " is too large");
    t.shape.push_back(static_cast<std::int64_t>(d));
  }
  const nlohmann::json& off = j["data_offsets"];
  if (!off.is_array() || off.size() != 2) throw InputError(where + ": \"data_offsets\" must be [begin, end]");
  t.begin = parseOffset(off[0], where);
  t.end = parseOffset(off[1], where);
  if (t.begin > t.end)
    throw InputError(where + ": data_offsets begin " + std::to_string(t.begin) + " > end " + std::to_string(t.end));
  if (t.end > dataSize)
    throw InputError(where + ": data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                     "] lie outside the data area (" + std::to_string(dataSize) + " bytes); is the file truncated?");
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(byteSize(t.dtype)), &bytes) || bytes != t.end - t.begin)
    throw InputError(where + ": shape " + t.shapeString() + " of " + toString(t.dtype) + " needs " +
                     std::to_string(count) + " × " + std::to_string(byteSize(t.dtype)) +
                     " bytes, but data_offsets span " + std::to_string(t.end - t.begin));
  return t;
}

void parseMetadata(const nlohmann::json& j, SafetensorsHeader& h, const std::string& file) {
  if (!j.is_object()) throw InputError(file + ": \"__metadata__\" is not a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string())
      throw InputError(file + ": \"__metadata__\" value of \"" + it.key() + "\" is not a string");
    h.metadata[it.key()] = it.value().get<std::string>();
  }
}

float halfToFloat(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  float f;
  if (exp == 0) {  // zero or subnormal: man · 2^-24
    f = std::ldexp(static_cast<float>(man), -24);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits |= sign;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const std::uint32_t bits = exp == 31 ? (sign | 0x7F800000u | (man << 13))  // inf / nan
                                       : (sign | ((exp + 112) << 23) | (man << 13));
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
T loadLe(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // the host is little-endian (x86-64, arm64), like the format
  return v;
}

}  // namespace

const char* toString(DType t) {
  for (const DTypeName& d : kDTypes)
    if (d.type == t) return d.name;
  return "?";
}

int byteSize(DType t) {
  for (const DTypeName& d : kDTypes)
    if (d.type == t) return d.size;
  return 1;
}

std::int64_t TensorInfo::elementCount() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string TensorInfo::shapeString() const {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

SafetensorsHeader parseSafetensorsHeader(const unsigned char* data, std::size_t size, const std::string& name) {
  if (size < 8)
    throw InputError(name + ": too short for a safetensors file (" + std::to_string(size) +
                     " bytes; the header length alone takes 8)");
  const std::uint64_t n = readLe64(data);
  if (n > kMaxHeaderBytes)
    throw InputError(name + ": header length " + std::to_string(n) + " is beyond the format's limit of 100 MB");
  if (n > size - 8)
    throw InputError(name + ": header length " + std::to_string(n) + " goes beyond the end of the file (" +
                     std::to_string(size) + " bytes); is the file truncated?");
  const std::string_view text(reinterpret_cast<const char*>(data + 8), n);
  const nlohmann::json j = parseJson(text, name + " (header)");
  if (!j.is_object()) throw InputError(name + ": the header is not a JSON object");

  SafetensorsHeader h;
  h.dataOffset = 8 + n;
  const std::uint64_t dataSize = size - h.dataOffset;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__")
      parseMetadata(it.value(), h, name);
    else
      h.tensors.push_back(parseTensor(it.key(), it.value(), dataSize, name));
  }
  std::sort(h.tensors.begin(), h.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (std::size_t i = 1; i < h.tensors.size(); ++i) {
    const TensorInfo &a = h.tensors[i - 1], &b = h.tensors[i];
    if (b.begin < a.end)
      throw InputError(name + ": tensors \"" + a.name + "\" and \"" + b.name + "\" overlap (bytes " +
                       std::to_string(b.begin) + "–" + std::to_string(std::min(a.end, b.end)) + ")");
  }
  return h;
}

void convertToFloat(DType dtype, const unsigned char* src, std::int64_t count, float* dst) {
  switch (dtype) {
    case DType::F32:
      std::memcpy(dst, src, static_cast<std::size_t>(count) * 4);
      return;
    case DType::F16:
      for (std::int64_t i = 0; i < count; ++i) dst[i] = halfToFloat(loadLe<std::uint16_t>(src + 2 * i));
      return;
    case DType::BF16:  // the upper half of a float32
      for (std::int64_t i = 0; i < count; ++i) {
        const std::uint32_t bits = static_cast<std::uint32_t>(loadLe<std::uint16_t>(src + 2 * i)) << 16;
        std::memcpy(dst + i, &bits, 4);
      }
      return;
    case DType::F64:
      for (std::int64_t i = 0; i < count; ++i) dst[i] = static_cast<float>(loadLe<double>(src + 8 * i));
      return;
    case DType::Bool:
      for (std::int64_t i = 0; i < count; ++i) dst[i] = src[i] ? 1.0f : 0.0f;
      return;
    case DType::U8:
      for (std::int64_t i = 0; i < count; ++i) dst[i] = static_cast<float>(src[i]);
      return;
    case DType::I8:
      for (std::int64_t i = 0; i < count; ++i) dst[i] = static_cast<float>(static_cast<std::int8_t>(src[i]));
      return;
#define ATTNLAB_INT_CASE(tag, T)                                                                          \
  case DType::tag:                                                                                        \
    for (std::int64_t i = 0; i < count; ++i) dst[i] = static_cast<float>(loadLe<T>(src + sizeof(T) * i)); \
    return;
      ATTNLAB_INT_CASE(U16, std::uint16_t)
      ATTNLAB_INT_CASE(I16, std::int16_t)
      ATTNLAB_INT_CASE(U32, std::uint32_t)
      ATTNLAB_INT_CASE(I32, std::int32_t)
      ATTNLAB_INT_CASE(U64, std::uint64_t)
      ATTNLAB_INT_CASE(I64, std::int64_t)
#undef ATTNLAB_INT_CASE
    case DType::F8E4M3:
    case DType::F8E5M2:
      break;
  }
  throw InputError(std::string("tensors of dtype ") + toString(dtype) + " cannot be converted to float");
}

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path), file_(std::make_unique<MappedFile>(path)) {
  header_ = parseSafetensorsHeader(file_->data(), file_->size(), path);
  for (std::size_t i = 0; i < header_.tensors.size(); ++i) byName_[header_.tensors[i].name] = i;
}

SafetensorsFile::~SafetensorsFile() = default;

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  const auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : &header_.tensors[it->second];
}

const unsigned char* SafetensorsFile::bytes(const TensorInfo& t) const {
  return file_->data() + header_.dataOffset + t.begin;
}

const float* SafetensorsFile::floats(const TensorInfo& t) {
  const unsigned char* src = bytes(t);
  if (t.dtype == DType::F32 && reinterpret_cast<std::uintptr_t>(src) % alignof(float) == 0)
    return reinterpret_cast<const float*>(src);
  auto it = converted_.find(t.name);
  if (it == converted_.end()) {
    std::vector<float> v(static_cast<std::size_t>(t.elementCount()));
    try {
      convertToFloat(t.dtype, src, t.elementCount(), v.data());
    } catch (const InputError& e) {
      throw InputError(path_ + ": tensor \"" + t.name + "\": " + e.what());
    }
    it = converted_.emplace(t.name, std::move(v)).first;
    // The stored bytes are not needed any more: their pages leave the resident set (Llama-3.2-1B's BF16
    // embeddings: 0.5 GB); they fault in again from the file if bytes(t) is ever read.
    file_->release(src, static_cast<std::size_t>(t.end - t.begin));
  }
  return it->second.data();
}

void SafetensorsFile::release(const TensorInfo& t) {
  if (converted_.erase(t.name) == 0) file_->release(bytes(t), static_cast<std::size_t>(t.end - t.begin));
}

}  // namespace attnlab
