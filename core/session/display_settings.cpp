#include "core/session/display_settings.h"

#include <algorithm>

#include "core/base/errors.h"

namespace attnlab {
namespace {

std::string orList(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

void check(const std::string& field, const std::string& value, const std::vector<std::string>& names) {
  if (std::find(names.begin(), names.end(), value) == names.end())
    throw InputError("display." + field + " is '" + value + "' (use " + orList(names) + ")");
}

}  // namespace

const std::vector<std::string>& colormapNames() {
  static const std::vector<std::string> names{"viridis", "cividis", "magma", "diverging"};
  return names;
}

const std::vector<std::string>& themeNames() {
  static const std::vector<std::string> names{"light", "dark"};
  return names;
}

const std::vector<std::string>& attentionScaleNames() {
  static const std::vector<std::string> names{"unit", "per-map", "shared", "row", "log"};
  return names;
}

void validate(const DisplaySettings& d) {
  check("colormap", d.colormap, colormapNames());
  check("theme", d.theme, themeNames());
  check("attention_scale", d.attentionScale, attentionScaleNames());
}

}  // namespace attnlab
