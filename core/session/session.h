#pragma once
// A session file: everything needed to come back to (or re-create a figure of) a piece of work.
// It is the parameters' JSON (so `attnlab export --params SESSION.json` reads it as it is) plus a
// "session" object with its own schema version:
//   {"schema": "attnlab.params/1", "sentence": …, "model": {…}, "selection": {"layer", "head", "view"},
//    "display": {…}, "session": {"schema": "attnlab.session/1", "program": "Attention Lab 0.1.0"}}
#include <string>

#include <nlohmann/json.hpp>

#include "core/session/params.h"

namespace attnlab {

inline constexpr const char* kSessionSchema = "attnlab.session/1";
inline constexpr int kSessionVersion = 1;

nlohmann::json sessionToJson(const Params& p);

/// Reads a session (or a plain params file, which is a session without history). Throws InputError
/// with a message for the user: not JSON, a newer version than this program, a bad field (named).
Params sessionFromJson(const nlohmann::json& j);
/// The checks of sessionFromJson before the fields: a JSON object, and a "session" block (when there is one) of a
/// version this program reads. Throws InputError; the command line's --params runs it too.
void requireReadableSession(const nlohmann::json& j);
Params sessionFromText(const std::string& text, const std::string& fileName);

}  // namespace attnlab
