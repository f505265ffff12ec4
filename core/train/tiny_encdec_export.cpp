#include "core/train/tiny_encdec_export.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/safetensors_writer.h"

namespace attnlab {

std::vector<std::string> tinyEncDecVocabulary(const TinyEncDecConfig& c) {
  std::vector<std::string> v = {"<s>", "<pad>", "</s>", "<unk>"};
  for (int i = 0; i < c.symbols; ++i)
    v.push_back(i < 26 ? std::string(1, static_cast<char>('a' + i)) : "w" + std::to_string(i));
  return v;
}

namespace {

nlohmann::json bartConfig(const EncDecTrainSettings& s) {
  const TinyEncDecConfig& c = s.model;
  nlohmann::json j;
  j["model_type"] = "bart";
  j["architectures"] = {"BartForConditionalGeneration"};
  j["d_model"] = c.dModel;
  j["encoder_layers"] = c.encoderLayers, j["decoder_layers"] = c.decoderLayers;
  j["num_hidden_layers"] = c.encoderLayers;
  j["encoder_attention_heads"] = c.heads, j["decoder_attention_heads"] = c.heads;
  j["encoder_ffn_dim"] = c.ffn, j["decoder_ffn_dim"] = c.ffn;
  j["vocab_size"] = c.vocab();
  j["max_position_embeddings"] = c.maxPositions();
  j["activation_function"] = "relu";
  j["scale_embedding"] = false;
  j["normalize_before"] = false, j["add_final_layer_norm"] = false, j["add_bias_logits"] = false;
  j["tie_word_embeddings"] = true, j["is_encoder_decoder"] = true;
  j["bos_token_id"] = kEncDecBos, j["pad_token_id"] = kEncDecPad, j["eos_token_id"] = kEncDecEos;
  j["decoder_start_token_id"] = kEncDecEos, j["forced_eos_token_id"] = kEncDecEos;
  j["dropout"] = 0.0, j["attention_dropout"] = 0.0, j["activation_dropout"] = 0.0;
  j["torch_dtype"] = "float32";
  j["attnlab_task"] = toString(s.task);  // what it was trained on (ignored by transformers)
  j["attnlab_min_length"] = s.minLength;
  j["attnlab_max_length"] = c.maxLength;
  return j;
}

nlohmann::json tokenizerJson(const TinyEncDecConfig& c) {
  const std::vector<std::string> vocab = tinyEncDecVocabulary(c);
  nlohmann::json ids = nlohmann::json::object(), added = nlohmann::json::array();
  for (std::size_t i = 0; i < vocab.size(); ++i) {
    ids[vocab[i]] = i;
    if (i < kEncDecFirstSymbol)
      added.push_back({{"id", i},
                       {"content", vocab[i]},
                       {"single_word", false},
                       {"lstrip", false},
                       {"rstrip", false},
                       {"normalized", false},
                       {"special", true}});
  }
  auto seq = [](const char* id) { return nlohmann::json{{"Sequence", {{"id", id}, {"type_id", 0}}}}; };
  const nlohmann::json eos = {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}};
  nlohmann::json j;
  j["version"] = "1.0";
  j["truncation"] = nullptr, j["padding"] = nullptr;
  j["added_tokens"] = added;
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "WhitespaceSplit"}};
  j["post_processor"] = {{"type", "TemplateProcessing"},
                         {"single", {seq("A"), eos}},
                         {"pair", {seq("A"), eos, seq("B"), eos}},
                         {"special_tokens", {{"</s>", {{"id", "</s>"}, {"ids", {kEncDecEos}}, {"tokens", {"</s>"}}}}}}};
  j["decoder"] = {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}};
  j["model"] = {{"type", "WordPiece"},
                {"unk_token", "<unk>"},
                {"continuing_subword_prefix", "##"},
                {"max_input_chars_per_word", 100},
                {"vocab", ids}};
  return j;
}

/// Creates `dir`; refuses a folder holding another model (a config.json this exporter did not write).
void prepareFolder(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw InputError(dir + ": exists and is not a folder");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot create the folder (" + ec.message() + ")");
  if (!fileExists(dir + "/config.json")) return;
  bool ours = false;
  try {
    ours = readJsonFile(dir + "/config.json").contains("attnlab_task");
  } catch (const std::exception&) {
  }
  if (!ours)
    throw InputError(dir +
                     ": holds another model (its config.json is not a trained toy encoder–decoder); "
                     "choose an empty folder");
}

}  // namespace

void saveTinyEncDecModel(const std::string& dir, const EncDecTrainSettings& settings,
                         const TinyEncDecParams<float>& params) {
  prepareFolder(dir);
  std::vector<TensorToWrite> tensors;
  params.forEach([&](const std::string& name, const Eigen::MatrixXf& m, TinyEncDecTensor kind) {
    TensorToWrite t;
    t.name = name;
    // Linear: [in, out] here, [out, in] in PyTorch; a row-major [out, in] is the column-major [in, out]'s bytes.
    const Eigen::MatrixXf stored = kind == TinyEncDecTensor::Linear ? Eigen::MatrixXf(m.transpose()) : m;
    if (kind == TinyEncDecTensor::Vector)
      t.shape = {stored.rows()};
    else
      t.shape = {stored.rows(), stored.cols()};
    t.data.resize(static_cast<std::size_t>(stored.size()));
    Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(t.data.data(), stored.rows(),
                                                                                      stored.cols()) = stored;
    tensors.push_back(std::move(t));
  });
  writeSafetensors(dir + "/model.safetensors", tensors, {{"format", "pt"}, {"producer", "attnlab train-encdec"}});
  writeFileAtomically(dir + "/config.json", bartConfig(settings).dump(2) + "\n");
  writeFileAtomically(dir + "/tokenizer.json", tokenizerJson(settings.model).dump(2) + "\n");
}

}  // namespace attnlab
