#include "core/checkpoint/config_fields.h"

#include <cmath>

#include "core/base/errors.h"

namespace attnlab {

int intField(const nlohmann::json& j, const char* key, const std::string& name, std::int64_t lo, std::int64_t hi) {
  if (!j.contains(key)) throw InputError(name + ": \"" + key + "\" is missing");
  const nlohmann::json& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    throw InputError(name + ": \"" + key + "\" must be an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "], not " + v.dump());
  return static_cast<int>(v.get<std::int64_t>());
}

int intFieldOr(const nlohmann::json& j, const char* key, int fallback, const std::string& name, std::int64_t lo,
               std::int64_t hi) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  return intField(j, key, name, lo, hi);
}

double epsField(const nlohmann::json& j, const char* key, double fallback, const std::string& name) {
  if (!j.contains(key)) return fallback;
  const nlohmann::json& v = j[key];
  if (!v.is_number() || !(v.get<double>() >= 0.0) || v.get<double>() > 1.0)
    throw InputError(name + ": \"" + key + "\" must be a small non-negative number, not " + v.dump());
  return v.get<double>();
}

double positiveField(const nlohmann::json& j, const char* key, double fallback, const std::string& name) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  const nlohmann::json& v = j[key];
  if (!v.is_number() || !(v.get<double>() > 0.0) || !std::isfinite(v.get<double>()))
    throw InputError(name + ": \"" + key + "\" must be a positive number, not " + v.dump());
  return v.get<double>();
}

bool boolField(const nlohmann::json& j, const char* key, bool fallback, const std::string& name) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_boolean()) throw InputError(name + ": \"" + key + "\" must be true or false, not " + j[key].dump());
  return j[key].get<bool>();
}

}  // namespace attnlab
