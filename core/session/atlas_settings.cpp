#include "core/session/atlas_settings.h"

#include "core/base/errors.h"

namespace attnlab {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw InputError("params: atlas." + key + " " + what);
}

void readInt(const json& j, const char* key, int& out) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if (!it->is_number_integer()) fail(key, "must be an integer");
  out = it->get<int>();
}

void readName(const json& j, const char* key, std::string& out) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if (!it->is_string()) fail(key, "must be a string (a score name, layer or head)");
  out = it->get<std::string>();
}

}  // namespace

json toJson(const AtlasSettings& s) {
  return json{{"probe_length", s.probeLength},
              {"probe_seed", s.probeSeed},
              {"corpus", s.corpus},
              {"window", s.window},
              {"top", s.top},
              {"x", s.x},
              {"y", s.y},
              {"colour", s.colour}};
}

void readAtlasSettings(const json& j, AtlasSettings& out) {
  if (!j.is_object()) throw InputError("params: atlas must be an object");
  AtlasSettings s = out;
  readInt(j, "probe_length", s.probeLength);
  if (const auto k = j.find("probe_seed"); k != j.end()) {
    if (!k->is_number_unsigned()) fail("probe_seed", "must be an integer ≥ 0");
    s.probeSeed = k->get<unsigned long long>();
  }
  if (const auto c = j.find("corpus"); c != j.end()) {
    if (!c->is_array()) fail("corpus", "must be a list of file or folder paths");
    s.corpus.clear();
    for (const json& item : *c) {
      if (!item.is_string()) fail("corpus", "must be a list of file or folder paths (strings)");
      s.corpus.push_back(item.get<std::string>());
    }
  }
  readInt(j, "window", s.window);
  readInt(j, "top", s.top);
  readName(j, "x", s.x);
  readName(j, "y", s.y);
  readName(j, "colour", s.colour);
  validate(s);
  out = std::move(s);
}

void validate(const AtlasSettings& s) {
  if (s.probeLength < 2 || s.probeLength > 4096) fail("probe_length", "must be 2–4096");
  if (s.window < 8 || s.window > 65536) fail("window", "must be 8–65536");
  if (s.top < 1 || s.top > 1000) fail("top", "must be 1–1000");
  for (const std::string& path : s.corpus)
    if (path.empty()) fail("corpus", "holds an empty path");
  for (auto [key, name] : {std::pair{"x", &s.x}, {"y", &s.y}, {"colour", &s.colour}})
    if (name->empty()) fail(key, "must name a score, layer or head");
}

}  // namespace attnlab
