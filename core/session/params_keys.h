#pragma once
// Keys of a params, session or lesson-step JSON that this program does not read: a misspelled `modelDir` would
// otherwise fall back to the default model in silence. The known keys are those toJson(Params) writes (every field
// the reader reads), plus a session's "session" block. Unknown keys are a warning, not an error: a file of the schema
// this program knows may come from a newer version that added a field (a newer schema is refused elsewhere).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

struct UnknownKey {
  std::string path;        ///< "modelDir", "prediction.ablateCross"
  std::string suggestion;  ///< the closest known key at that place ("model_dir"), or empty when none is close
};

/// Every unknown key of `j` (an object read by paramsFromJson), depth first, in key order (nlohmann's: by name);
/// objects the program knows are walked (an unknown object is reported once, not its insides). Nothing for a
/// non-object.
std::vector<UnknownKey> unknownParamsKeys(const nlohmann::json& j);

/// "unknown key “modelDir” (did you mean “model_dir”?); unknown key “x”": one clause per key, empty for none.
std::string unknownKeysMessage(const std::vector<UnknownKey>& keys);

/// The known key closest to `key` (case, '_' and '-' ignored, then at most a third of its letters edited, at least
/// 2), or empty.
std::string closestKey(const std::string& key, const std::vector<std::string>& known);

}  // namespace attnlab
