#include "core/session/params_keys.h"

#include <algorithm>
#include <cctype>

#include "core/session/params_json.h"
#include "core/session/session.h"

namespace attnlab {
namespace {

using nlohmann::json;

/// Lower case without '_' and '-': "modelDir" and "model_dir" are both "modeldir".
std::string folded(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Levenshtein distance (insert, delete, substitute: 1 each).
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// The shape every key must fit: what toJson writes for default parameters, and a session's own block.
const json& knownShape() {
  static const json shape = [] {
    json j = toJson(Params{});
    j["session"] = {{"schema", kSessionSchema}, {"program", ""}};
    return j;
  }();
  return shape;
}

void walk(const json& j, const json& shape, const std::string& prefix, std::vector<UnknownKey>& out) {
  std::vector<std::string> known;
  for (auto it = shape.begin(); it != shape.end(); ++it) known.push_back(it.key());
  for (auto it = j.begin(); it != j.end(); ++it) {
    const auto s = shape.find(it.key());
    if (s == shape.end()) {
      const std::string near = closestKey(it.key(), known);
      out.push_back({prefix + it.key(), near.empty() ? std::string() : prefix + near});
    } else if (s->is_object() && it->is_object()) {
      walk(*it, *s, prefix + it.key() + ".", out);
    }
  }
}

}  // namespace

std::string closestKey(const std::string& key, const std::vector<std::string>& known) {
  const std::string k = folded(key);
  const std::size_t limit = std::max<std::size_t>(2, k.size() / 3);
  std::string best;
  std::size_t bestDistance = limit + 1;
  for (const std::string& candidate : known) {
    const std::size_t d = distance(k, folded(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

std::vector<UnknownKey> unknownParamsKeys(const json& j) {
  std::vector<UnknownKey> out;
  if (j.is_object()) walk(j, knownShape(), "", out);
  return out;
}

std::string unknownKeysMessage(const std::vector<UnknownKey>& keys) {
  std::string out;
  for (const UnknownKey& k : keys) {
    if (!out.empty()) out += "; ";
    out += "unknown key \u201C" + k.path + "\u201D";
    if (!k.suggestion.empty()) out += " (did you mean \u201C" + k.suggestion + "\u201D?)";
  }
  return out;
}

}  // namespace attnlab
