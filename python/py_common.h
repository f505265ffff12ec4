#pragma once
// What the Python module's files share: the loaded model, inputs turned into tokens, and NumPy arrays made from the
// core's column-major matrices (views where the layout allows, kept alive by a capsule holding their owner).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/model.h"
#include "core/session/params.h"
#include "core/text/token_display.h"

namespace attnlab::py_module {

namespace py = pybind11;

/// A model opened by attnlab.load: the core model and the parameters that name it (describeModel, the analyses).
struct LoadedModel {
  std::shared_ptr<const Model> model;
  Params params;
  ModelInfo info;
  /// The (name or name filter, fn) pairs of the open `with model.hooks(...)` blocks, in the order added: every
  /// forward, run_with_hooks and run_with_cache of this model runs them first (py_hooks.h). Shared by the copies of
  /// the model (its caches, its tokenizer); touched with the GIL held.
  std::shared_ptr<py::list> contextHooks = std::make_shared<py::list>();
};

/// The texts or token ids of one call, each tokenized as the program tokenizes it: a str, a list of str (a batch), a
/// sequence of ints or a 1-D integer array (one text's ids), a list of such sequences or a 2-D integer array (a
/// batch). Throws InputError for anything else, ids outside the vocabulary, or a batch of different lengths.
std::vector<TokenizedText> inputsOf(const LoadedModel& m, py::handle input);

/// How the model's vocabulary writes its pieces (ModelInfo::pieceStyle), for tokenDisplayText.
TokenDisplayStyle styleOf(const ModelInfo& info);

/// One text as given as ids: each token named by its vocabulary piece, as the tokenizers do (the spans are empty).
TokenizedText textOfIds(const LoadedModel& m, const std::vector<int>& ids);

/// A capsule owning `owner`: the base of NumPy views into it, so the memory lives as long as any view.
py::capsule ownerCapsule(std::shared_ptr<const void> owner);

/// A read-only float32 view of `data` with `shape` and byte `strides`, kept alive by `base`.
py::array floatView(const float* data, std::vector<py::ssize_t> shape, std::vector<py::ssize_t> strides,
                    py::handle base);

/// [1, n, d] view of a column-major [n, d] matrix owned by `base`: strides (n·d·4, 4, 4n), no copy.
py::array rowsView(const Mat& m, py::handle base);

/// [1, n, d] view of a matrix the call made: moved into a capsule, no copy.
py::array ownedRowsView(Mat m);

/// A C-contiguous float32 array of `shape` (filled by the caller).
py::array_t<float> newFloatArray(const std::vector<py::ssize_t>& shape);

/// A double vector / matrix as a NumPy float64 array (copied).
py::array_t<double> toArray(const VecD& v);
py::array_t<double> toArray(const MatD& m);

/// A JSON document as Python objects: objects → dict, rectangular arrays of numbers (null → nan) → float64 arrays,
/// other arrays → list. The analyses whose CLI output is built by core/ (spectrum, collapse) reuse that JSON.
py::object fromJson(const nlohmann::json& j);

/// Throws InputError when `m` has no unembedding (the built-in model has no vocabulary).
void requireVocabulary(const LoadedModel& m, const char* what);

}  // namespace attnlab::py_module
