#include "core/train/tiny_checkpoint.h"

#include <cmath>
#include <filesystem>

#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/safetensors.h"
#include "core/checkpoint/safetensors_writer.h"

namespace attnlab {

void prepareModelFolder(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw InputError(dir + ": exists and is not a folder");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot create the folder (" + ec.message() + ")");
  if (fileExists(dir + "/config.json") && !isTinyCheckpoint(dir))
    throw InputError(dir +
                     ": holds another model (its config.json is not an Attention Lab tiny model); "
                     "choose an empty folder");
}

void saveTinyModel(const std::string& dir, const TinyConfig& config, const TinyParams<float>& params) {
  prepareModelFolder(dir);
  std::vector<TensorToWrite> tensors;
  params.forEach([&](const std::string& name, const Eigen::MatrixXf& m) {
    TensorToWrite t;
    t.name = name;
    if (m.cols() == 1)
      t.shape = {m.rows()};
    else
      t.shape = {m.rows(), m.cols()};
    t.data.resize(static_cast<std::size_t>(m.size()));
    Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(t.data.data(), m.rows(),
                                                                                      m.cols()) = m;
    tensors.push_back(std::move(t));
  });
  writeSafetensors(dir + "/model.safetensors", tensors, {{"format", "pt"}, {"producer", "attnlab train"}});
  writeFileAtomically(dir + "/config.json", toJson(config).dump(2) + "\n");
}

bool isTinyCheckpoint(const std::string& dir) {
  try {
    const nlohmann::json j = readJsonFile(dir + "/config.json");
    return j.is_object() && j.value("model_type", std::string()) == "attnlab-tiny";
  } catch (const std::exception&) {
    return false;
  }
}

namespace {

/// The parameters `config` implies, every tensor filled from a safetensors source: `find(name)` gives its
/// header entry (nullptr when missing), `floats(t)` its values row-major. `label` starts every message.
template <typename Find, typename Floats>
TinyParams<float> readTinyParams(const TinyConfig& config, const std::string& label, Find find, Floats floats) {
  TinyParams<float> params = tinyParamsLayout(config);
  params.forEach([&](const std::string& name, Eigen::MatrixXf& m) {
    const TensorInfo* t = find(name);
    if (!t) throw InputError(label + ": tensor " + name + " is missing");
    const bool vector = m.cols() == 1;
    const bool shapeOk = vector ? (t->shape.size() == 1 && t->shape[0] == m.rows())
                                : (t->shape.size() == 2 && t->shape[0] == m.rows() && t->shape[1] == m.cols());
    if (!shapeOk)
      throw InputError(label + ": tensor " + name + " has shape " + t->shapeString() + ", config.json implies [" +
                       std::to_string(m.rows()) + (vector ? "" : ", " + std::to_string(m.cols())) + "]");
    m = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(floats(*t), m.rows(),
                                                                                                m.cols());
    if (!m.allFinite()) throw InputError(label + ": tensor " + name + " holds NaN or infinite values");
  });
  return params;
}

}  // namespace

std::shared_ptr<const TinyModel> loadTinyModel(const std::string& dir, const std::string& name) {
  const std::string configPath = dir + "/config.json";
  const TinyConfig config = tinyConfigFromJson(readJsonFile(configPath), configPath);
  const std::string weightsPath = dir + "/model.safetensors";
  if (!fileExists(weightsPath)) throw InputError(dir + ": model.safetensors is missing");
  SafetensorsFile file(weightsPath);
  TinyParams<float> params = readTinyParams(
      config, weightsPath, [&](const std::string& n) { return file.find(n); },
      [&](const TensorInfo& t) { return file.floats(t); });
  return std::make_shared<TinyModel>(config, std::move(params), name.empty() ? checkpointFolderName(dir) : name);
}

std::shared_ptr<const TinyModel> loadTinyModelFromMemory(const std::string& configJson, const unsigned char* weights,
                                                         std::size_t size, const std::string& name) {
  const TinyConfig config = tinyConfigFromJson(parseJson(configJson, name + " config.json"), name);
  const SafetensorsHeader header = parseSafetensorsHeader(weights, size, name);
  std::vector<float> values;  // one tensor at a time: the bytes need not be 4-byte aligned
  TinyParams<float> params = readTinyParams(
      config, name,
      [&](const std::string& n) -> const TensorInfo* {
        for (const TensorInfo& t : header.tensors)
          if (t.name == n) return &t;
        return nullptr;
      },
      [&](const TensorInfo& t) {
        values.resize(static_cast<std::size_t>(t.elementCount()));
        convertToFloat(t.dtype, weights + header.dataOffset + t.begin, t.elementCount(), values.data());
        return values.data();
      });
  return std::make_shared<TinyModel>(config, std::move(params), name);
}

}  // namespace attnlab
