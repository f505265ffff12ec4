#pragma once
// model.run_with_cache: the traces of one call (one per text of the batch) read through TransformerLens's hook
// names. Arrays are made when read (a long input's maps and outputs are recomputed then, as the window does) and kept
// for the next read; a single text's streams, z and stored outputs are views into its trace (no copy).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/model/head_maps.h"
#include "python/py_common.h"

namespace attnlab::py_module {

class ActivationCache {
 public:
  /// `filter`: None (every hook), a name, a list of names (each checked: KeyError naming the near ones), or a
  /// callable name → bool.
  ActivationCache(LoadedModel model, std::vector<std::shared_ptr<const Trace>> traces, py::handle filter);

  /// The hook names this cache holds, in TransformerLens's order.
  const std::vector<std::string>& keys() const { return names_; }
  bool contains(const std::string& name) const;
  /// The activation of hook `name` (KeyError for an unknown or filtered-out name, with the near valid ones).
  py::object get(const std::string& name);
  /// Every hook name of the traced model, whatever the filter (TransformerLens's order).
  const std::vector<std::string>& allNames() const { return all_; }
  int batch() const { return static_cast<int>(traces_.size()); }
  /// Holds `value` for `name` instead of what the trace gives (run_with_cache under model.hooks(): a hooked site).
  void preset(const std::string& name, py::object value) { made_[name] = std::move(value); }
  const std::vector<std::shared_ptr<const Trace>>& traces() const { return traces_; }

 private:
  py::object make(const std::string& name);
  [[noreturn]] void unknown(const std::string& name, const std::vector<std::string>& valid) const;

  LoadedModel model_;
  std::vector<std::shared_ptr<const Trace>> traces_;
  std::vector<py::object> bases_;                    ///< one capsule per trace: the base of its views
  std::vector<std::shared_ptr<HeadMapCache>> maps_;  ///< a long input's recomputed maps, as the window keeps them
  std::vector<std::string> all_, names_;
  std::map<std::string, py::object> made_;
};

/// Every hook name of a model traced as `t` (TransformerLens's names and order).
std::vector<std::string> hookNames(const LoadedModel& m, const Trace& t);

}  // namespace attnlab::py_module
