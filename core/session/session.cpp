#include "core/session/session.h"

#include "core/base/errors.h"
#include "core/session/params_json.h"

namespace attnlab {

nlohmann::json sessionToJson(const Params& p) {
  nlohmann::json j = toJson(p);
  j["session"] = {{"schema", kSessionSchema}, {"program", "Attention Lab"}};
  return j;
}

void requireReadableSession(const nlohmann::json& j) {
  if (!j.is_object()) throw InputError("this is not an Attention Lab session (expected a JSON object)");
  if (const auto s = j.find("session"); s != j.end()) {
    const auto schema = s->is_object() ? s->find("schema") : s->end();
    if (!s->is_object() || schema == s->end() || !schema->is_string())
      throw InputError("session.schema is missing: this is not an Attention Lab session");
    const std::string name = schema->get<std::string>();
    const std::string prefix = "attnlab.session/";
    if (name.rfind(prefix, 0) != 0) throw InputError("session.schema is '" + name + "', not " + prefix + "N");
    int version = 0;
    try {
      version = std::stoi(name.substr(prefix.size()));
    } catch (const std::exception&) {
      throw InputError("session.schema '" + name + "' has no version number");
    }
    if (version > kSessionVersion)
      throw InputError("the session was written by a newer Attention Lab (format version " + std::to_string(version) +
                       "; this program reads up to " + std::to_string(kSessionVersion) + ")");
  }
}

Params sessionFromJson(const nlohmann::json& j) {
  requireReadableSession(j);
  return paramsFromJson(j);
}

Params sessionFromText(const std::string& text, const std::string& fileName) {
  return sessionFromJson(parseJsonText(text, "'" + fileName + "'"));
}

}  // namespace attnlab
