#pragma once
// model.run_with_hooks: TransformerLens's forward hooks on the core's forward pass (core/model/forward_hooks.h).
// fn(activation, hook) gets a float32 array of TransformerLens's shape (a copy, written back after the call: changes
// made in place count) and may return a new array of the same shape and dtype: the pass continues from it.
#include <map>
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
/// The same, keeping each text's trace in `traces` (as the hooks left it: attnlab.show / figure hand it to the
/// program).
py::object runWithHooksKeeping(const LoadedModel& m, py::handle input, py::handle fwdHooks, py::handle returnType,
                               std::vector<std::shared_ptr<const Trace>>* traces);

/// One forward of every text with hooks: the traces, the logits [B·n, vocab] (null without), and with `record` each
/// hooked site's value as the hooks left it, [batch, …] by hook name (what run_with_cache under model.hooks() holds).
struct HookedRun {
  std::vector<std::shared_ptr<const Trace>> traces;
  std::shared_ptr<Mat> logits;
  std::map<std::string, py::object> recorded;
};

/// Runs `texts` with the model's context hooks (model.hooks(...) blocks, first) and `fwdHooks`; errors as
/// runWithHooks. `maps`: how the traces keep the attention maps.
HookedRun runHooked(const LoadedModel& m, const std::vector<TokenizedText>& texts, py::handle fwdHooks, bool wantLogits,
                    bool record, MapKeeping maps);

/// Whether a `with model.hooks(...)` block (or reset_hooks_end=False) left hooks on the model.
bool hasContextHooks(const LoadedModel& m);

/// [batch, pos, vocab] read-only view of logits [B·n, vocab] (None for null).
py::object logitsView(std::shared_ptr<Mat> logits, int batch);

/// model.hooks(fwd_hooks, reset_hooks_end=True) — TransformerLens's context manager: inside the `with` block every
/// forward, run_with_hooks and run_with_cache of the model runs these hooks (before run_with_hooks' own); leaving the
/// block removes them, also on an exception — and model.reset_hooks().
void registerHooksContext(py::module_& m, py::class_<LoadedModel>& model, const char* hooksDoc);

/// KeyError "no hook '<name>' in this model; the nearest: …" (difflib over `valid`).
[[noreturn]] void unknownHook(const std::string& name, const std::vector<std::string>& valid);

}  // namespace attnlab::py_module
