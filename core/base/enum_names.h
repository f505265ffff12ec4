#pragma once
// Name tables for enums that appear in JSON and on the command line: one (name, value) array per
// enum, parsed with a message that lists the accepted names.
#include <array>
#include <string>
#include <utility>

#include "core/base/errors.h"

namespace attnlab {

template <typename E, std::size_t N>
using EnumNames = std::array<std::pair<const char*, E>, N>;

/// The value named `s`; throws InputError "unknown WHAT 's' (accepted: a, b, c)".
template <typename E, std::size_t N>
E parseEnum(const std::string& s, const EnumNames<E, N>& names, const char* what) {
  std::string accepted;
  for (const auto& [name, value] : names) {
    if (s == name) return value;
    accepted += accepted.empty() ? "" : ", ";
    accepted += name;
  }
  throw InputError(std::string("unknown ") + what + " '" + s + "' (accepted: " + accepted + ")");
}

/// The name of `v`, or "?" when the table lacks it.
template <typename E, std::size_t N>
const char* nameOf(E v, const EnumNames<E, N>& names) {
  for (const auto& [name, value] : names)
    if (value == v) return name;
  return "?";
}

}  // namespace attnlab
