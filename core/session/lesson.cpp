#include "core/session/lesson.h"

#include "core/base/errors.h"
#include "core/session/params_json.h"

namespace attnlab {
namespace {

using nlohmann::json;

/// "params: model.heads must be …" → "params.model.heads must be …"
std::string fieldMessage(const std::string& what, const std::string& prefix) {
  const std::string tag = "params: ";
  if (what.rfind(tag, 0) == 0) return prefix + "." + what.substr(tag.size());
  return prefix + ": " + what;
}

std::string stringField(const json& obj, const char* key, const std::string& where, bool required) {
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) throw InputError(where + ": the field '" + key + "' is missing");
    return {};
  }
  if (!it->is_string()) throw InputError(where + ": " + key + " must be a string");
  return it->get<std::string>();
}

/// "text" is a string or an array of paragraphs.
std::string textField(const json& step, const std::string& where) {
  const auto it = step.find("text");
  if (it == step.end()) throw InputError(where + ": the field 'text' is missing");
  if (it->is_string()) return it->get<std::string>();
  if (!it->is_array()) throw InputError(where + ": text must be a string or an array of paragraphs");
  std::string text;
  for (const json& p : *it) {
    if (!p.is_string()) throw InputError(where + ": text must be a string or an array of paragraphs");
    text += (text.empty() ? "" : "\n\n") + p.get<std::string>();
  }
  return text;
}

Params readParams(const json& obj, const Params& base, const std::string& where) {
  const auto it = obj.find("params");
  if (it == obj.end()) return base;
  try {
    Params p = paramsFromJson(*it, base);
    validate(p.model);
    return p;
  } catch (const InputError& e) {
    const std::string what = e.what();
    throw InputError(where + ": " +
                     (what.rfind("params: ", 0) == 0 ? fieldMessage(what, "params") : "params.model: " + what));
  }
}

}  // namespace

Lesson lessonFromJson(const json& j, const std::string& source) {
  const std::string where = "lesson '" + source + "'";
  if (!j.is_object()) throw InputError(where + ": expected a JSON object at the top level");
  const std::string schema = stringField(j, "schema", where, false);
  if (!schema.empty() && schema != kLessonSchema) {
    if (schema.rfind("attnlab.lesson/", 0) == 0)
      throw InputError(where + ": schema '" + schema + "' is newer than this program understands (" + kLessonSchema +
                       ")");
    throw InputError(where + ": schema is '" + schema + "', not " + kLessonSchema);
  }
  Lesson lesson;
  lesson.title = stringField(j, "title", where, true);
  lesson.summary = stringField(j, "summary", where, false);
  const Params base = readParams(j, Params{}, where);
  const auto steps = j.find("steps");
  if (steps == j.end() || !steps->is_array() || steps->empty())
    throw InputError(where + ": steps must be a non-empty array");
  for (std::size_t i = 0; i < steps->size(); ++i) {
    const json& s = (*steps)[i];
    std::string at = where + ", step " + std::to_string(i + 1);
    if (!s.is_object()) throw InputError(at + ": expected an object");
    LessonStep step;
    step.title = stringField(s, "title", at, true);
    at += " (“" + step.title + "”)";
    step.text = textField(s, at);
    step.params = readParams(s, base, at);
    if (s.contains("sentence")) step.params.sentence = stringField(s, "sentence", at, true);
    step.view = stringField(s, "view", at, false);
    if (step.view.empty()) step.view = step.params.selection.view;
    step.params.selection.view = step.view;
    lesson.steps.push_back(std::move(step));
  }
  return lesson;
}

Lesson lessonFromText(const std::string& text, const std::string& source) {
  return lessonFromJson(parseJsonText(text, "lesson '" + source + "'"), source);
}

}  // namespace attnlab
