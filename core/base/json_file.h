#pragma once
// Reading the JSON files of a checkpoint folder (config.json, tokenizer.json, vocab.json, the
// safetensors header) with messages that name the file. nlohmann's parser recurses once per nesting
// level, so the nesting depth is checked first: a hostile file of a million '[' must give a message,
// not a stack overflow.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attnlab {

/// Deepest nesting accepted; real checkpoint files need 5 or so.
inline constexpr int kMaxJsonDepth = 64;

/// Maximum bracket depth of `text` outside strings (escapes inside strings skipped): checked before parsing.
int jsonNestingDepth(std::string_view text);

/// Parses `text`; throws InputError "<name>: malformed JSON (…)" or "<name>: JSON nested deeper than …".
nlohmann::json parseJson(std::string_view text, const std::string& name);

/// The largest file readTextFile reads whole by default (tokenizer.json files reach ~35 MB, a long text a few MB).
inline constexpr std::size_t kMaxTextFileBytes = std::size_t(512) << 20;

/// Reads the whole file at `path` as bytes; throws InputError naming the file when it cannot be read, is a folder,
/// is not a regular file (/dev/zero, a FIFO: they would be read without end or block for ever) or is larger than
/// `maxBytes` (the message gives its size and the limit).
std::string readTextFile(const std::string& path, std::size_t maxBytes = kMaxTextFileBytes);

/// parseJson(readTextFile(path), path).
nlohmann::json readJsonFile(const std::string& path);

/// True when a regular file exists at `path`, false when nothing is there. Something there that is not a regular
/// file (a folder, /dev/zero, a FIFO) throws InputError naming it: "model.safetensors is missing" for a FIFO sent
/// the user looking for a file that was there, and reading it would block or never end.
bool fileExists(const std::string& path);

}  // namespace attnlab
