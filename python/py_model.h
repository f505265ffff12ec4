#pragma once
// attnlab.load and what a loaded model does from Python: its sizes, its tokens, and run_with_cache.
#include <string>
#include <utility>

#include "python/py_cache.h"
#include "python/py_common.h"

namespace attnlab::py_module {

/// The model a folder or "builtin:NAME" names (every model the program opens); "" or "builtin" is the built-in
/// random transformer. Throws InputError naming the problem.
LoadedModel loadModel(const std::string& dir);

/// TransformerLens-style sizes: n_layers, n_heads, d_model, d_head, n_ctx, d_vocab, n_key_value_heads, model_name,
/// kind, and the program's own description (describeModel) as `describe`.
py::object configOf(const LoadedModel& m);

/// Token ids [batch, pos] (int64) of a text, a list of same-length texts, or ids (returned as given).
py::array_t<long long> toTokens(const LoadedModel& m, py::handle input);

/// The tokens' display strings: a list for one text, a list of lists for a batch.
py::object toStrTokens(const LoadedModel& m, py::handle input);

/// Runs every text of the input (the GIL released) and returns (logits [batch, pos, vocab] or None, cache). `maps`:
/// "auto" (MapKeeping::Auto, as the window), "never" (every map recomputed when read) or "always".
std::pair<py::object, ActivationCache> runWithCache(const LoadedModel& m, py::handle input, py::handle namesFilter,
                                                    py::handle returnType, const std::string& maps);

/// Seconds the last plain run_with_cache (no hooks) spent in the engine, the GIL released: its forward passes and
/// logits, the work bench_gpt2 --logits 1 times. bench/bench_python.py sets it against the whole call's time.
double lastRunEngineSeconds();

/// The tokenizer of a loaded model: encode / decode / vocabulary pieces.
struct PyTokenizer {
  LoadedModel model;
};

}  // namespace attnlab::py_module
