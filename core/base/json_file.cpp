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

/// Maximum bracket depth outside strings (escapes inside strings are skipped).
int nestingDepth(std::string_view text) {
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

}  // namespace

nlohmann::json parseJson(std::string_view text, const std::string& name) {
  if (nestingDepth(text) > kMaxJsonDepth)
    throw InputError(name + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(name + ": malformed JSON (" + e.what() + ")");
  }
}

std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return s.str();
}

nlohmann::json readJsonFile(const std::string& path) { return parseJson(readTextFile(path), path); }

bool fileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace attnlab
