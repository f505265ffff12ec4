#pragma once
// model.run_with_hooks: TransformerLens's forward hooks on the core's forward pass (core/model/forward_hooks.h).
// fn(activation, hook) gets a float32 array of TransformerLens's shape (a copy, written back after the call: changes
// made in place count) and may return a new array of the same shape and dtype: the pass continues from it.
#include <memory>
#include <string>
#include <vector>

#include "python/py_common.h"

namespace attnlab::py_module {

/// Every hook name run_with_hooks accepts for `m` (TransformerLens's names and order).
std::vector<std::string> hookableNames(const LoadedModel& m);

/// Runs every text of `input` with the hooks `fwdHooks` — a list of (name or function name → bool, fn) — and returns
/// the logits [batch, pos, vocab] (None for return_type=None or a model without a vocabulary). Each text of a batch
/// is its own pass: the hooks get [1, …] arrays, once per text. Errors: KeyError for an unknown name (the near valid
/// ones named), ValueError / TypeError for a hook's wrong shape or dtype, a hook's own exception re-raised with its
/// name; the model is unchanged by any of them.
py::object runWithHooks(const LoadedModel& m, py::handle input, py::handle fwdHooks, py::handle returnType);
/// The same, keeping each text's trace in `traces` (as the hooks left it: attnlab.show / figure hand it to the program).
py::object runWithHooksKeeping(const LoadedModel& m, py::handle input, py::handle fwdHooks, py::handle returnType,
                               std::vector<std::shared_ptr<const Trace>>* traces);

/// KeyError "no hook '<name>' in this model; the nearest: …" (difflib over `valid`).
[[noreturn]] void unknownHook(const std::string& name, const std::vector<std::string>& valid);

}  // namespace attnlab::py_module
