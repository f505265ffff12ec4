#pragma once
// Weights of a Hugging Face checkpoint as views into the safetensors mapping (no copy for aligned F32;
// F16/BF16 converted once), found by name with or without the architecture's prefix
// ("transformer." for GPT-2, "bert." for BERT), their shapes checked against config.json.
//
// Layouts: GPT-2's Conv1D stores W as [in, out] row-major, BERT's nn.Linear as [out, in] row-major.
// matrix() views either as stored (embeddings: rows are looked up in place); packed() repacks a product
// weight from either layout for PackedMatrix::affine and releases the stored copy.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "core/base/tensor.h"
#include "core/checkpoint/safetensors_set.h"
#include "core/compute/packed_matrix.h"

namespace attnlab {

using RowMajorMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A float tensor living in the checkpoint: `rows × cols` floats at `data`, row-major as stored.
struct WeightView {
  const float* data = nullptr;
  Eigen::Index rows = 0, cols = 0;

  /// The stored matrix [rows, cols].
  Eigen::Map<const RowMajorMat> matrix() const { return {data, rows, cols}; }
  /// The stored matrix transposed [cols, rows] (no copy).
  Eigen::Map<const Mat> transposed() const { return {data, cols, rows}; }
  /// A 1-D tensor as a column vector [rows·cols].
  Eigen::Map<const Vec> vector() const { return {data, rows * cols}; }
};

class WeightSource {
 public:
  /// `prefixes` are tried in order (e.g. {"transformer.", ""}); the first one under which `probe`
  /// exists is used for every name. Throws InputError when none is found (wrong architecture?).
  WeightSource(std::shared_ptr<SafetensorsSet> files, const std::vector<std::string>& prefixes,
               const std::string& probe, const std::string& archName);
  /// One unsharded file.
  WeightSource(std::shared_ptr<SafetensorsFile> file, const std::vector<std::string>& prefixes,
               const std::string& probe, const std::string& archName)
      : WeightSource(std::make_shared<SafetensorsSet>(std::move(file)), prefixes, probe, archName) {}

  /// A 2-D tensor of shape [rows, cols]; a missing tensor is recorded (see finish()) and an empty view
  /// returned; a wrong shape throws at once, naming the tensor, its shape and the expected one.
  WeightView matrix(const std::string& name, Eigen::Index rows, Eigen::Index cols);
  /// A 1-D tensor of length n.
  WeightView vector(const std::string& name, Eigen::Index n);
  /// Like vector(), but tries `alt` (e.g. the old "gamma" for "weight") when `name` is absent.
  WeightView vector(const std::string& name, const std::string& alt, Eigen::Index n);
  bool has(const std::string& name) const;

  /// How a 2-D weight is stored: GPT-2's Conv1D as [in, out], nn.Linear as [out, in].
  enum class Stored { InOut, OutIn };
  /// A weight used only in products, repacked for PackedMatrix::affine; the checkpoint's own copy is
  /// then released (see SafetensorsFile::release), so resident memory holds the weights once. `rows` ×
  /// `cols` is the stored shape. A missing tensor is recorded like matrix() does and gives an empty result.
  PackedMatrix packed(const std::string& name, Eigen::Index rows, Eigen::Index cols, Stored stored);

  /// nn.Linear weights [out_k, in] stacked along their outputs into one packed [in, Σ out_k] product
  /// (q | k | v, gate | up): one product instead of several. Each part is released after copying.
  PackedMatrix packedStack(const std::vector<std::pair<std::string, Eigen::Index>>& parts, Eigen::Index in);
  /// 1-D tensors concatenated into one owned vector (the stacked products' biases).
  Vec vectorStack(const std::vector<std::pair<std::string, Eigen::Index>>& parts);

  /// Throws InputError listing every missing tensor, if any.
  void finish() const;
  const std::shared_ptr<SafetensorsSet>& files() const { return file_; }
  /// The prefix found for the probe ("model.", "" …).
  const std::string& prefix() const { return prefix_; }

 private:
  WeightView load(const std::string& name, const std::vector<std::int64_t>& shape);
  /// Throws InputError naming tensor `t`, its element `bad` (row and column) and `value` (NaN, ±Inf): a damaged
  /// checkpoint is refused at open, before it can give silent NaN predictions (or crash).
  [[noreturn]] void throwNonFinite(const TensorInfo& t, std::int64_t bad, float value) const;

  std::shared_ptr<SafetensorsSet> file_;
  std::string prefix_;
  std::vector<std::string> missing_;
};

}  // namespace attnlab
