#include "core/checkpoint/hf_weights.h"

#include <algorithm>

#include "core/base/errors.h"

namespace attnlab {
namespace {

std::string shapeString(const std::vector<std::int64_t>& s) {
  TensorInfo t;
  t.shape = s;
  return t.shapeString();
}

}  // namespace

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
