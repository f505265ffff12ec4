#pragma once
// Helpers shared by the tokenizer tests: fixture paths and JSON vector files.
#include <QtTest>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/base/json_file.h"

namespace attnlab::test {

inline std::string fixture(const std::string& rel) { return std::string(ATTNLAB_TEST_DATA) + "/fixtures/" + rel; }

inline QStringList toQStrings(const std::vector<std::string>& v) {
  QStringList out;
  for (const std::string& s : v) out << QString::fromStdString(s);
  return out;
}

inline QList<int> toQInts(const nlohmann::json& j) {
  QList<int> out;
  for (const auto& x : j) out << x.get<int>();
  return out;
}

inline QStringList jsonStrings(const nlohmann::json& j) {
  QStringList out;
  for (const auto& x : j) out << QString::fromStdString(x.get<std::string>());
  return out;
}

}  // namespace attnlab::test
