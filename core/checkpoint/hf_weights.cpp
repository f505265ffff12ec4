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
  const WeightView v = load(name, {rows, cols});
  if (!v.data) return {};
  PackedMatrix m = stored == Stored::InOut ? PackedMatrix::fromInOut(v.data, rows, cols)
                                           : PackedMatrix::fromOutIn(v.data, rows, cols);
  file_->release(*file_->find(prefix_ + name));
  return m;
}

PackedMatrix WeightSource::packedStack(const std::vector<std::pair<std::string, Eigen::Index>>& parts,
                                       Eigen::Index in) {
  Eigen::Index total = 0;
  for (const auto& [name, out] : parts) total += out;
  std::vector<float> stacked(static_cast<std::size_t>(total * in));  // [Σ out_k, in] row-major
  Eigen::Index row = 0;
  bool complete = true;
  for (const auto& [name, out] : parts) {
    const WeightView v = load(name, {out, in});
    if (!v.data) {
      complete = false;
      continue;
    }
    std::copy(v.data, v.data + out * in, stacked.begin() + row * in);
    file_->release(*file_->find(prefix_ + name));
    row += out;
  }
  if (!complete) return {};
  return PackedMatrix::fromOutIn(stacked.data(), total, in);
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
