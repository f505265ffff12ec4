#pragma once
// The program's analyses from Python, each the same numbers as the command line's JSON (attnlab predict, attribute,
// patch, heads, dump --spectrum, collapse), returned as dicts of NumPy arrays.
#include "python/py_common.h"

namespace attnlab::py_module {

/// attnlab predict: the top-k tokens at a position (None: the model's default — the last token, or a masked LM's
/// first [MASK]), with heads switched off when `ablate` names them: ablate_mode as the command line's --ablate-mode
/// (zero, mean, resample; resample takes the heads' outputs from a run of `resampleText`).
py::dict predictTop(const LoadedModel& m, py::handle text, py::handle position, int top, double temperature,
                    py::handle ablate, const std::string& ablateMode, py::handle resampleText);

/// attnlab attribute: each head's, MLP's, the embeddings' and the biases' direct share of logit(target) (or of
/// logit(target) − logit(versus)); target None: the model's top prediction.
py::dict attribute(const LoadedModel& m, py::handle text, py::handle target, py::handle versus, py::handle position);

/// attnlab patch: the normalised effect of patching each head and each residual stream position; `map` (None: "all"
/// with residual, else "heads") as --map, ablations as predictTop's; the same fields as the command line's JSON
/// (map, first_difference, runs, skipped, warning when the difference is too small to trust, ablate, ablate_mode).
py::dict patch(const LoadedModel& m, py::handle clean, py::handle corrupt, py::handle target, py::handle versus,
               bool residual, py::handle map, py::handle ablate, const std::string& ablateMode,
               py::handle resampleText);

/// attnlab heads: the head atlas's scores on the repeated random-token probe.
py::dict headScores(const LoadedModel& m, int probeLength, unsigned long long probeSeed);

/// attnlab dump --spectrum: one head's spectra (attention, scores, exp scores) in double.
py::object spectrum(const LoadedModel& m, py::handle text, int layer, int head);

/// attnlab collapse: the rank-collapse curves of random deep stacks (settings as keyword arguments).
py::object collapse(const py::kwargs& settings);

}  // namespace attnlab::py_module
