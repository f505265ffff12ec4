#pragma once
// Reading checked fields of a config.json: each throws InputError naming the file (`name`), the field and
// the value when a field is missing or out of range.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab {

// Sanity bounds: far above any real checkpoint, low enough that products of them cannot overflow.
inline constexpr std::int64_t kMaxConfigDim = 1 << 20, kMaxConfigLayers = 4096, kMaxConfigVocab = 10'000'000;

/// An integer in [lo, hi]; required.
int intField(const nlohmann::json& j, const char* key, const std::string& name, std::int64_t lo, std::int64_t hi);
/// Like intField, but `fallback` when the key is absent or null.
int intFieldOr(const nlohmann::json& j, const char* key, int fallback, const std::string& name, std::int64_t lo,
               std::int64_t hi);
/// A small non-negative number (a norm's ε), `fallback` when absent.
double epsField(const nlohmann::json& j, const char* key, double fallback, const std::string& name);
/// A finite positive number, `fallback` when absent or null.
double positiveField(const nlohmann::json& j, const char* key, double fallback, const std::string& name);
/// A boolean, `fallback` when absent or null.
bool boolField(const nlohmann::json& j, const char* key, bool fallback, const std::string& name);

}  // namespace attnlab
