#pragma once
// Reading the JSON files of a checkpoint folder (config.json, tokenizer.json, vocab.json, the
// safetensors header) with messages that name the file. nlohmann's parser recurses once per nesting
// level, so the nesting depth is checked first: a hostile file of a million '[' must give a message,
// not a stack overflow.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attnlab {

/// Deepest nesting accepted; real checkpoint files need 5 or so.
inline constexpr int kMaxJsonDepth = 64;

/// Parses `text`; throws InputError "<name>: malformed JSON (…)" or "<name>: JSON nested deeper than …".
nlohmann::json parseJson(std::string_view text, const std::string& name);

/// Reads the whole file at `path` as bytes; throws InputError naming the file when it cannot be read.
std::string readTextFile(const std::string& path);

/// parseJson(readTextFile(path), path).
nlohmann::json readJsonFile(const std::string& path);

/// True when a regular file exists at `path`.
bool fileExists(const std::string& path);

}  // namespace attnlab
