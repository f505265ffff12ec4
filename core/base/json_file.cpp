#include "core/base/json_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/base/errors.h"

namespace attnlab {
namespace {

/// Throws InputError naming `path` when what `st` describes is a folder or not a regular file (a device, FIFO or
/// socket): read whole, /dev/zero never ends and a FIFO without a writer blocks for ever.
void requireRegularFile(const std::string& path, const struct stat& st) {
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a folder, not a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": is not a regular file (a device, FIFO or socket), so it is not read");
}

}  // namespace

int jsonNestingDepth(std::string_view text) {
  int depth = 0, worst = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      worst = std::max(worst, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return worst;
}

nlohmann::json parseJson(std::string_view text, const std::string& name) {
  if (jsonNestingDepth(text) > kMaxJsonDepth)
    throw InputError(name + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name + ": malformed JSON (" + e.what() + ")");
  }
}

std::string readTextFile(const std::string& path, std::size_t maxBytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
  requireRegularFile(path, st);
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > maxBytes)
    throw InputError(path + ": is " + std::to_string(size >> 20) + " MB; files of more than " +
                     std::to_string(maxBytes >> 20) + " MB are not read whole");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad() || static_cast<std::size_t>(in.gcount()) != size) throw InputError(path + ": read error");
  return text;
}

nlohmann::json readJsonFile(const std::string& path) { return parseJson(readTextFile(path), path); }

bool fileExists(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  requireRegularFile(path, st);
  return true;
}

}  // namespace attnlab
