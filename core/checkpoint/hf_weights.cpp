#include "core/checkpoint/hf_weights.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/base/errors.h"

namespace attnlab {
namespace {

std::string shapeString(const std::vector<std::int64_t>& s) {
  TensorInfo t;
  t.shape = s;
  return t.shapeString();
}

/// Index of the first element whose exponent bits are all ones (NaN or ±Inf) among n floats at `bytes` (any
/// alignment: safetensors places tensors at any offset), or −1. The bit test vectorises; a 500 MB checkpoint is
/// scanned in ~0.1 s, next to seconds of reading it.
std::int64_t firstNonFinite(const unsigned char* bytes, std::size_t n) {
  constexpr std::size_t kBlock = 4096;
  for (std::size_t b = 0; b < n; b += kBlock) {
    const std::size_t e = std::min(n, b + kBlock);
    std::uint32_t any = 0;
    for (std::size_t i = b; i < e; ++i) {
      std::uint32_t u;
      std::memcpy(&u, bytes + 4 * i, 4);
      any |= static_cast<std::uint32_t>((u & 0x7f800000u) == 0x7f800000u);
    }
    if (any)
      for (std::size_t i = b; i < e; ++i) {
        std::uint32_t u;
        std::memcpy(&u, bytes + 4 * i, 4);
        if ((u & 0x7f800000u) == 0x7f800000u) return static_cast<std::int64_t>(i);
      }
  }
  return -1;
}

/// The same for bfloat16 stored bytes (exponent 0x7f80 of each 16-bit value).
std::int64_t firstNonFiniteBf16(const unsigned char* bytes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    std::uint16_t u;
    std::memcpy(&u, bytes + 2 * i, 2);
    if ((u & 0x7f80u) == 0x7f80u) return static_cast<std::int64_t>(i);
  }
  return -1;
}

}  // namespace

void WeightSource::throwNonFinite(const TensorInfo& t, std::int64_t bad, float value) const {
  const std::int64_t cols = t.shape.size() > 1 ? t.shape.back() : 0;
  const std::string at = cols > 0 ? "row " + std::to_string(bad / cols) + ", column " + std::to_string(bad % cols)
                                  : "element " + std::to_string(bad);
  throw InputError(file_->shardPath(t) + ": tensor \"" + t.name + "\" holds " +
                   (std::isnan(value) ? "NaN"
                    : value > 0       ? "+Inf"
                                      : "-Inf") +
                   " at " + at + ": the checkpoint is damaged (every weight must be a finite number)");
}

WeightSource::WeightSource(std::shared_ptr<SafetensorsSet> file, const std::vector<std::string>& prefixes,
                           const std::string& probe, const std::string& archName)
    : file_(std::move(file)) {
  for (const std::string& p : prefixes)
    if (file_->find(p + probe)) {
      prefix_ = p;
      return;
    }
  std::string tried;
  for (const std::string& p : prefixes) tried += (tried.empty() ? "\"" : ", \"") + p + probe + "\"";
  throw InputError(file_->path() + ": no tensor " + tried + ": this is not a " + archName + " checkpoint");
}

bool WeightSource::has(const std::string& name) const { return file_->find(prefix_ + name) != nullptr; }

WeightView WeightSource::load(const std::string& name, const std::vector<std::int64_t>& shape) {
  const TensorInfo* t = file_->find(prefix_ + name);
  if (!t) {
    missing_.push_back(prefix_ + name);
    return {};
  }
  if (t->shape != shape)
    throw InputError(file_->shardPath(*t) + ": tensor \"" + t->name + "\" has shape " + t->shapeString() +
                     ", but config.json implies " + shapeString(shape));
  WeightView v;
  v.data = file_->floats(*t);
  v.rows = shape[0];
  v.cols = shape.size() > 1 ? shape[1] : 1;
  const std::int64_t bad =
      firstNonFinite(reinterpret_cast<const unsigned char*>(v.data), static_cast<std::size_t>(v.rows * v.cols));
  if (bad >= 0) throwNonFinite(*t, bad, v.data[bad]);
  return v;
}

WeightView WeightSource::matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
  return load(name, {rows, cols});
}

PackedMatrix WeightSource::packed(const std::string& name, Eigen::Index rows, Eigen::Index cols, Stored stored) {
  if (stored == Stored::OutIn) return packedStack({{name, rows}}, cols);
  const WeightView v = load(name, {rows, cols});
  if (!v.data) return {};
  PackedMatrix m = PackedMatrix::fromInOut(v.data, rows, cols);
  file_->release(*file_->find(prefix_ + name));
  return m;
}

PackedMatrix WeightSource::packedStack(const std::vector<std::pair<std::string, Eigen::Index>>& parts,
                                       Eigen::Index in) {
  // Found and shape-checked first; all BF16 are packed from the mapped bytes, F32 likewise, anything
  // else (F16, mixed dtypes) through floats(): no stacked copy either way.
  std::vector<const TensorInfo*> found;
  bool allBf16 = true, complete = true;
  for (const auto& [name, out] : parts) {
    const TensorInfo* t = file_->find(prefix_ + name);
    if (!t) {
      load(name, {out, in});  // records it as missing
      complete = false;
      continue;
    }
    if (t->shape != std::vector<std::int64_t>{out, in})
      throw InputError(file_->shardPath(*t) + ": tensor \"" + t->name + "\" has shape " + t->shapeString() +
                       ", but config.json implies " + shapeString({out, in}));
    allBf16 = allBf16 && t->dtype == DType::BF16;
    found.push_back(t);
  }
  if (!complete) return {};
  const StoredFloat type = allBf16 ? StoredFloat::BF16 : StoredFloat::F32;
  std::vector<const void*> rows;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const TensorInfo& t = *found[i];
    const unsigned char* base =
        allBf16 || t.dtype == DType::F32 ? file_->bytes(t) : reinterpret_cast<const unsigned char*>(file_->floats(t));
    const std::size_t rowBytes = static_cast<std::size_t>(in) * (allBf16 ? 2 : 4);
    const std::size_t count = static_cast<std::size_t>(parts[i].second * in);
    if (allBf16) {
      const std::int64_t bad = firstNonFiniteBf16(base, count);
      if (bad >= 0) {
        std::uint32_t u = 0;
        std::memcpy(reinterpret_cast<unsigned char*>(&u) + 2, base + 2 * bad, 2);  // bf16 = a float's high half
        float value;
        std::memcpy(&value, &u, 4);
        throwNonFinite(t, bad, value);
      }
    } else {
      const std::int64_t bad = firstNonFinite(base, count);
      if (bad >= 0) {
        float value;
        std::memcpy(&value, base + 4 * bad, 4);
        throwNonFinite(t, bad, value);
      }
    }
    for (Eigen::Index r = 0; r < parts[i].second; ++r) rows.push_back(base + static_cast<std::size_t>(r) * rowBytes);
  }
  PackedMatrix m = PackedMatrix::fromRows(rows, in, type);
  for (const TensorInfo* t : found) file_->release(*t);
  return m;
}

Vec WeightSource::vectorStack(const std::vector<std::pair<std::string, Eigen::Index>>& parts) {
  Eigen::Index total = 0;
  for (const auto& [name, n] : parts) total += n;
  Vec out = Vec::Zero(total);
  Eigen::Index at = 0;
  for (const auto& [name, n] : parts) {
    const WeightView v = load(name, {n});
    if (v.data) out.segment(at, n) = v.vector();
    at += n;
  }
  return out;
}

WeightView WeightSource::vector(const std::string& name, Eigen::Index n) { return load(name, {n}); }

WeightView WeightSource::vector(const std::string& name, const std::string& alt, Eigen::Index n) {
  return has(name) || !has(alt) ? vector(name, n) : vector(alt, n);
}

void WeightSource::finish() const {
  if (missing_.empty()) return;
  std::string list;
  for (std::size_t i = 0; i < missing_.size() && i < 8; ++i) list += (i ? ", \"" : "\"") + missing_[i] + "\"";
  if (missing_.size() > 8) list += " and " + std::to_string(missing_.size() - 8) + " more";
  throw InputError(file_->path() + ": " + std::to_string(missing_.size()) + " tensor" +
                   (missing_.size() > 1 ? "s are" : " is") + " missing: " + list);
}

}  // namespace attnlab
