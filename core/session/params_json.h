#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/session/params.h"

namespace attnlab {

inline constexpr const char* kParamsSchema = "attnlab.params/1";

nlohmann::json toJson(const Params& p);
nlohmann::json toJson(const ModelConfig& c);
nlohmann::json toJson(const CollapseSettings& s);
nlohmann::json toJson(const VariantSettings& v);
nlohmann::json toJson(const SpectraSettings& s);

/// Reads parameters over `base`: absent fields keep base's values, unknown fields are ignored
/// (forward compatibility), a field of the wrong type or value throws InputError naming it, e.g.
/// "params: model.d_model must be an integer".
Params paramsFromJson(const nlohmann::json& j, const Params& base = {});

/// Parses JSON text; a syntax error becomes an InputError with the position.
nlohmann::json parseJsonText(const std::string& text, const std::string& what);

}  // namespace attnlab
