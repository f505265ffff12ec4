#include "core/text/tokenizer_loader.h"

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/bpe_tokenizer.h"
#include "core/text/hf_tokenizer.h"
#include "core/text/sentencepiece_tokenizer.h"
#include "core/text/wordpiece_tokenizer.h"

namespace attnlab {
namespace {

/// tokenizer_config.json merged over special_tokens_map.json (either may be missing).
nlohmann::json readTokenizerConfig(const std::string& dir) {
  nlohmann::json cfg = nlohmann::json::object();
  for (const char* file : {"special_tokens_map.json", "tokenizer_config.json"}) {
    const std::string path = dir + "/" + file;
    if (!fileExists(path)) continue;
    const nlohmann::json j = readJsonFile(path);
    if (!j.is_object()) throw InputError(path + ": not a JSON object");
    for (auto it = j.begin(); it != j.end(); ++it) cfg[it.key()] = it.value();
  }
  return cfg;
}

/// Special tokens named by the config: *_token entries and added_tokens_decoder contents.
std::vector<std::string> specialTokens(const nlohmann::json& cfg) {
  std::vector<std::string> out;
  for (const char* key : {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"})
    if (cfg.contains(key))
      if (std::string s = specialTokenContent(cfg[key]); !s.empty()) out.push_back(s);
  if (cfg.contains("added_tokens_decoder") && cfg["added_tokens_decoder"].is_object())
    for (const auto& [id, entry] : cfg["added_tokens_decoder"].items())
      if (std::string s = specialTokenContent(entry); !s.empty()) out.push_back(s);
  return out;
}

std::string configString(const nlohmann::json& cfg, const char* key, const std::string& fallback) {
  if (!cfg.contains(key)) return fallback;
  const std::string s = specialTokenContent(cfg[key]);
  return s.empty() ? fallback : s;
}

std::unique_ptr<TextTokenizer> fromTokenizerJson(const std::string& path, const std::string& family) {
  const nlohmann::json j = readJsonFile(path);
  const std::string type = j.at("model").value("type", std::string());
  if (family == "gpt2") {
    if (type != "BPE") throw InputError(path + ": GPT-2 needs a BPE tokenizer, this one is \"" + type + "\"");
    return std::make_unique<BpeTokenizer>(BpeTokenizer::fromTokenizerJson(j, path));
  }
  if (type != "WordPiece") throw InputError(path + ": BERT needs a WordPiece tokenizer, this one is \"" + type + "\"");
  return std::make_unique<WordPieceTokenizer>(WordPieceTokenizer::fromTokenizerJson(j, path));
}

std::unique_ptr<TextTokenizer> gpt2FromFiles(const std::string& dir) {
  const std::string vocab = dir + "/vocab.json", merges = dir + "/merges.txt";
  if (!fileExists(vocab) || !fileExists(merges))
    throw InputError(dir + ": no GPT-2 tokenizer files (expected tokenizer.json, or vocab.json and merges.txt)");
  const nlohmann::json cfg = readTokenizerConfig(dir);
  BpeOptions o;
  o.addPrefixSpace = cfg.value("add_prefix_space", false);
  o.unkToken = configString(cfg, "unk_token", "");
  o.specialTokens = specialTokens(cfg);
  if (cfg.value("add_bos_token", false)) o.bosTokens = {configString(cfg, "bos_token", "<|endoftext|>")};
  return std::make_unique<BpeTokenizer>(
      BpeTokenizer::fromFiles(readTextFile(vocab), vocab, readTextFile(merges), merges, o));
}

std::unique_ptr<TextTokenizer> bertFromFiles(const std::string& dir) {
  const std::string vocab = dir + "/vocab.txt";
  if (!fileExists(vocab)) throw InputError(dir + ": no BERT tokenizer files (expected tokenizer.json or vocab.txt)");
  const nlohmann::json cfg = readTokenizerConfig(dir);
  WordPieceOptions o;
  o.normalizer.lowercase = cfg.value("do_lower_case", true);
  const nlohmann::json strip = cfg.value("strip_accents", nlohmann::json());
  o.normalizer.stripAccents = strip.is_boolean() ? strip.get<bool>() : o.normalizer.lowercase;
  o.normalizer.handleChineseChars = cfg.value("tokenize_chinese_chars", true);
  o.unkToken = configString(cfg, "unk_token", "[UNK]");
  o.clsToken = configString(cfg, "cls_token", "[CLS]");
  o.sepToken = configString(cfg, "sep_token", "[SEP]");
  o.specialTokens = specialTokens(cfg);
  for (const char* s : {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"}) o.specialTokens.push_back(s);
  return std::make_unique<WordPieceTokenizer>(WordPieceTokenizer::fromVocabTxt(readTextFile(vocab), vocab, o));
}

}  // namespace

std::unique_ptr<TextTokenizer> loadTokenizer(const std::string& dir, const std::string& family) {
  const std::string json = dir + "/tokenizer.json";
  try {
    if (fileExists(json)) return fromTokenizerJson(json, family);
    return family == "gpt2" ? gpt2FromFiles(dir) : bertFromFiles(dir);
  } catch (const nlohmann::json::exception& e) {
    // A field of the wrong type or a missing required field in otherwise well-formed JSON.
    throw InputError(dir + ": unexpected content in the tokenizer files (" + e.what() + ")");
  }
}

std::unique_ptr<TextTokenizer> loadTokenizerJsonEngine(const std::string& dir) {
  const std::string json = dir + "/tokenizer.json", config = dir + "/tokenizer_config.json";
  if (!fileExists(json)) throw InputError(json + ": not found (the tokenizer engine needs tokenizer.json)");
  const nlohmann::json cfg = fileExists(config) ? readJsonFile(config) : nlohmann::json::object();
  if (!cfg.is_object()) throw InputError(config + ": not a JSON object");
  return HfTokenizer::fromJson(readJsonFile(json), cfg, json);
}

std::unique_ptr<TextTokenizer> loadTokenizerForFolder(const std::string& dir) {
  if (fileExists(dir + "/tokenizer.json")) return loadTokenizerJsonEngine(dir);
  try {
    for (const char* f : {"source.spm", "target.spm"})
      if (fileExists(dir + "/" + f)) return loadMarianTokenizer(dir);
    if (fileExists(dir + "/spiece.model")) return loadT5SentencePiece(dir);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(dir + ": unexpected content in the tokenizer files (" + e.what() + ")");
  }
  throw InputError(dir +
                   ": no tokenizer files (expected tokenizer.json, Marian's source.spm, target.spm and "
                   "vocab.json, or spiece.model)");
}

}  // namespace attnlab
