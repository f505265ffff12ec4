#include "core/session/prediction_settings.h"

#include <algorithm>
#include <cmath>

#include "core/base/errors.h"

namespace attnlab {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& key, const std::string& what) {
  throw InputError("params: prediction." + key + " " + what);
}

template <typename T>
void read(const json& j, const char* key, T& out, const char* kind) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    fail(key, std::string("must be ") + kind);
  }
}

}  // namespace

json toJson(const PredictionSettings& s) {
  return json{{"temperature", s.temperature},
              {"top_k", s.topK},
              {"top_p", s.topP},
              {"greedy", s.greedy},
              {"seed", s.seed},
              {"generate_steps", s.generateSteps},
              {"target", s.target},
              {"versus", s.versus},
              {"ablate", formatHeadList(s.ablate)},
              {"ablate_encoder", formatHeadList(s.ablateEncoder)},
              {"ablate_cross", formatHeadList(s.ablateCross)},
              {"ablation_mode", ablationModeName(s.ablationMode)},
              {"resample_text", s.resampleText},
              {"clean", s.clean},
              {"corrupt", s.corrupt},
              {"patch_target", s.patchTarget},
              {"patch_versus", s.patchVersus}};
}

void readPredictionSettings(const json& j, PredictionSettings& out) {
  if (!j.is_object()) throw InputError("params: prediction must be an object");
  PredictionSettings s = out;
  if (const auto t = j.find("temperature"); t != j.end() && !t->is_number()) fail("temperature", "must be a number");
  if (const auto t = j.find("top_p"); t != j.end() && !t->is_number()) fail("top_p", "must be a number");
  read(j, "temperature", s.temperature, "a number");
  read(j, "top_p", s.topP, "a number");
  if (const auto k = j.find("top_k"); k != j.end() && !k->is_number_integer()) fail("top_k", "must be an integer");
  read(j, "top_k", s.topK, "an integer");
  read(j, "greedy", s.greedy, "true or false");
  if (const auto k = j.find("seed"); k != j.end() && !k->is_number_unsigned()) fail("seed", "must be an integer ≥ 0");
  read(j, "seed", s.seed, "an integer ≥ 0");
  if (const auto k = j.find("generate_steps"); k != j.end() && !k->is_number_integer())
    fail("generate_steps", "must be an integer");
  read(j, "generate_steps", s.generateSteps, "an integer");
  for (auto [key, field] : {std::pair{"target", &s.target},
                            {"versus", &s.versus},
                            {"clean", &s.clean},
                            {"corrupt", &s.corrupt},
                            {"patch_target", &s.patchTarget},
                            {"patch_versus", &s.patchVersus},
                            {"resample_text", &s.resampleText}})
    read(j, key, *field, "a string");
  for (auto [key, list] :
       {std::pair{"ablate", &s.ablate}, {"ablate_encoder", &s.ablateEncoder}, {"ablate_cross", &s.ablateCross}}) {
    if (j.find(key) == j.end()) continue;
    std::vector<std::string> items;
    read(j, key, items, "a list of \"LAYER.HEAD\" strings");
    list->clear();
    for (const std::string& item : items) {
      const std::vector<HeadRef> one = parseHeadList(item, std::string("params: prediction.") + key);
      list->insert(list->end(), one.begin(), one.end());
    }
  }
  std::string mode = ablationModeName(s.ablationMode);
  read(j, "ablation_mode", mode, "a string");
  try {
    s.ablationMode = parseAblationMode(mode, "ablation_mode");
  } catch (const InputError&) {
    fail("ablation_mode", "is '" + mode + "' (use zero, mean or resample)");
  }
  validate(s);
  for (std::vector<HeadRef>* list : {&s.ablate, &s.ablateEncoder, &s.ablateCross}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  out = std::move(s);
}

void validate(const PredictionSettings& s) {
  if (!std::isfinite(s.temperature) || s.temperature <= 0) fail("temperature", "must be > 0");
  if (s.topK < 0) fail("top_k", "must be ≥ 0 (0: no top-k filter)");
  if (!std::isfinite(s.topP) || s.topP <= 0 || s.topP > 1) fail("top_p", "must be in (0, 1]");
  if (s.generateSteps < 1 || s.generateSteps > 512) fail("generate_steps", "must be 1–512");
  for (auto [key, list] :
       {std::pair{"ablate", &s.ablate}, {"ablate_encoder", &s.ablateEncoder}, {"ablate_cross", &s.ablateCross}})
    for (const HeadRef& h : *list)
      if (h.layer < 0 || h.head < 0) fail(key, "names a negative layer or head");
}

std::vector<HeadRef>& ablatedHeads(PredictionSettings& s, const std::string& stack) {
  return stack == "encoder" ? s.ablateEncoder : stack == "cross" ? s.ablateCross : s.ablate;
}

const std::vector<HeadRef>& ablatedHeads(const PredictionSettings& s, const std::string& stack) {
  return stack == "encoder" ? s.ablateEncoder : stack == "cross" ? s.ablateCross : s.ablate;
}

bool anyAblated(const PredictionSettings& s) {
  return !s.ablate.empty() || !s.ablateEncoder.empty() || !s.ablateCross.empty();
}

void toggleAblation(PredictionSettings& s, HeadRef head, const std::string& stack) {
  std::vector<HeadRef>& list = ablatedHeads(s, stack);
  const auto it = std::find(list.begin(), list.end(), head);
  if (it != list.end()) {
    list.erase(it);
    return;
  }
  list.insert(std::upper_bound(list.begin(), list.end(), head), head);
}

bool isAblated(const PredictionSettings& s, HeadRef head, const std::string& stack) {
  const std::vector<HeadRef>& list = ablatedHeads(s, stack);
  return std::find(list.begin(), list.end(), head) != list.end();
}

}  // namespace attnlab
