#pragma once
// A lesson: a guided walkthrough stored as a JSON file of steps. Each step sets the sentence and
// parameters (a partial params object over the lesson's base, over the defaults), names the view to
// show and explains in a few sentences what to look at.
//   {"schema": "attnlab.lesson/1", "title": "…", "summary": "…", "params": {…base…},
//    "steps": [{"title": "…", "text": "…" or ["paragraph", …], "view": "heatmap",
//               "sentence": "…", "params": {…}}]}
// Unknown parameter fields are ignored (paramsFromJson's rule), so a lesson written for views and
// settings of a newer build still loads here; the GUI says when a step's view is missing.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/session/params.h"

namespace attnlab {

inline constexpr const char* kLessonSchema = "attnlab.lesson/1";

struct LessonStep {
  std::string title;
  std::string text;  ///< paragraphs separated by blank lines; may use simple HTML (<b>, <i>, <sub>)
  std::string view;  ///< export name of the view to show
  Params params;     ///< the step's complete parameters (selection.view = view)
};

struct Lesson {
  std::string title;
  std::string summary;
  std::vector<LessonStep> steps;
};

/// Parses a lesson. Every problem throws InputError naming the source, the step and the field, e.g.
/// "lesson 'my.json', step 2 (“Heads”): params.model.heads must be an integer".
Lesson lessonFromJson(const nlohmann::json& j, const std::string& source);
Lesson lessonFromText(const std::string& text, const std::string& source);

}  // namespace attnlab
