#include "core/base/npy.h"

#include <cstdint>
#include <cstring>

#include "core/base/errors.h"

namespace attnlab {
namespace {

// numpy ≥ 1.23 leaves room for the first axis to grow to 21 digits, so that a header can be rewritten
// in place; writing the same padding keeps our files byte-identical to numpy.save's.
constexpr std::size_t kGrowthAxisMaxDigits = 21;
constexpr std::size_t kAlign = 64;

std::string header(const std::vector<std::size_t>& shape, NpyType type) {
  std::string shapeText = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) shapeText += (i ? ", " : "") + std::to_string(shape[i]);
  shapeText += shape.size() == 1 ? ",)" : ")";
  std::string dict = std::string("{'descr': '") + (type == NpyType::Float32 ? "<f4" : "<f8") +
                     "', 'fortran_order': False, 'shape': " + shapeText + ", }";
  if (!shape.empty()) {
    const std::size_t digits = std::to_string(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  // magic (6) + version (2) + length (2) + dict + '\n' must be a multiple of kAlign.
  const std::size_t used = 10 + dict.size() + 1;
  dict.append((kAlign - used % kAlign) % kAlign, ' ');
  dict += '\n';
  return dict;
}

template <typename T>
void appendLittleEndian(std::string& out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  // Every platform this builds on is little-endian; the check keeps a big-endian port honest.
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  const uint16_t probe = 1;
  const bool little = *reinterpret_cast<const unsigned char*>(&probe) == 1;
  if (little) {
    out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
  } else {
    for (std::size_t i = sizeof(T); i-- > 0;) out.push_back(static_cast<char>(bytes[i]));
  }
}

}  // namespace

std::string npyBytes(const std::vector<double>& values, const std::vector<std::size_t>& shape, NpyType type) {
  std::size_t count = 1;
  for (std::size_t s : shape) count *= s;
  if (count != values.size())
    throw InputError("npy: shape holds " + std::to_string(count) + " values but " + std::to_string(values.size()) +
                     " were given");
  const std::string dict = header(shape, type);
  if (dict.size() > 0xFFFF) throw InputError("npy: too many dimensions for a version 1.0 header");
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xFF));
  out.push_back(static_cast<char>(dict.size() >> 8));
  out += dict;
  out.reserve(out.size() + values.size() * (type == NpyType::Float32 ? 4 : 8));
  for (double v : values) {
    if (type == NpyType::Float32)
      appendLittleEndian(out, static_cast<float>(v));
    else
      appendLittleEndian(out, v);
  }
  return out;
}

std::string npyBytes(const MatD& m, NpyType type) {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) values.push_back(m(i, j));  // C order: row by row
  return npyBytes(values, {static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())}, type);
}

std::string npyBytes(const Mat& m) {
  std::vector<double> values;  // float → double → float is exact
  values.reserve(static_cast<std::size_t>(m.size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) values.push_back(m(i, j));
  return npyBytes(values, {static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())}, NpyType::Float32);
}

std::string npyBytes(const std::vector<MatD>& stack, NpyType type) {
  if (stack.empty()) throw InputError("npy: nothing to write");
  std::vector<double> values;
  for (const MatD& m : stack) {
    if (m.rows() != stack[0].rows() || m.cols() != stack[0].cols())
      throw InputError("npy: matrices of different shapes cannot be stacked into one array");
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) values.push_back(m(i, j));
  }
  return npyBytes(values,
                  {stack.size(), static_cast<std::size_t>(stack[0].rows()), static_cast<std::size_t>(stack[0].cols())},
                  type);
}

}  // namespace attnlab
