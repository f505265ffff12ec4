// `import attnlab`: the engine of Attention Lab from Python (issue 34). The bindings and their docstrings; the work is
// in py_model.cpp (loading, tokens, run_with_cache), py_cache.cpp (the hook names) and py_analyses.cpp.
#include <pybind11/stl.h>

#include "core/base/errors.h"
#include "core/text/token_display.h"
#include "python/py_analyses.h"
#include "python/py_hooks.h"
#include "python/py_model.h"
#include "python/py_show.h"

namespace py = pybind11;
using namespace attnlab;
using namespace attnlab::py_module;

namespace {

constexpr const char* kModuleDoc = R"(Attention Lab's engine from Python: the same core/ the program runs.

    import attnlab
    model = attnlab.load("builtin:induction")        # or a checkpoint folder, or "builtin"
    logits, cache = model.run_with_cache("the cat sat on the mat")
    cache["blocks.0.attn.hook_pattern"]                # [batch, head, query, key]

Texts are tokenized as the program tokenizes them: a BOS (or [CLS]) is added only where the model's own tokenizer
adds one. GPT-2's tokenizer adds none, so unlike TransformerLens (prepend_bos=True by default) a GPT-2 text gets no
<|endoftext|> first; pass token ids to choose the tokens exactly (ids are taken as given). Bad input raises
ValueError (an unknown hook name: KeyError) with the program's message.)";

constexpr const char* kRunDoc = R"(Runs the model and returns (logits, cache).

input: a text, a list of texts of the same token length (a batch), token ids (a list or 1-D int array) or a batch of
    ids (a list of lists or a 2-D int array). Each text of a batch is its own forward pass; the arrays stack them.
    A text is tokenized as the program tokenizes it: a BOS only where the model's tokenizer adds one (none for GPT-2,
    unlike TransformerLens's prepend_bos=True); ids are taken as given.
names_filter: None (every hook), a hook name, a list of names, or a function name -> bool. An unknown name raises
    KeyError naming the near valid ones.
return_type: "logits" (default) or None (no logits: the forward pass alone).
maps: "auto" (default: the attention maps are kept while they are small — GPT-2 small up to 337 tokens — and
    recomputed from Q and K when read beyond, as the window does), "never" (always recomputed when read: the least
    memory) or "always".

logits: float32 [batch, pos, d_vocab] (None for a model without a vocabulary), a read-only view without a copy.
cache: an ActivationCache indexed by TransformerLens's hook names:
    hook_embed [batch, pos, d_model]      the token embedding W_E[ids] (models with a vocabulary)
    hook_pos_embed                        the position vector added to it (GPT-2, the trained tiny models)
    blocks.{l}.hook_resid_pre             the stream entering layer l (blocks.0: hook_embed + hook_pos_embed)
    blocks.{l}.attn.hook_q / hook_k / hook_v   [batch, pos, head, d_head] (k, v: the key/value heads of
                                          grouped-query attention); for rotary models q and k are after the
                                          rotation (TransformerLens's hook_rot_q / hook_rot_k)
    blocks.{l}.attn.hook_attn_scores      [batch, head, query, key] scaled (and soft-capped) scores, masked as
                                          TransformerLens masks them: -inf where the query does not see the key
                                          (above the diagonal of a causal model, outside a sliding window)
    blocks.{l}.attn.hook_pattern          [batch, head, query, key] the attention weights
    blocks.{l}.attn.hook_z                [batch, pos, head, d_head] each head's A·V
    blocks.{l}.hook_attn_out / hook_mlp_out   what attention / the MLP add to the stream [batch, pos, d_model]
    blocks.{l}.hook_resid_mid             hook_resid_pre + hook_attn_out
    blocks.{l}.hook_resid_post            the layer's output
    ln_final.hook_normalized              the final stream centred and divided by its scale, before the norm's
                                          weights (TransformerLens folds them into W_U)
Inside `with model.hooks(...)` (Model.hooks) the run is the hooked one and the cache holds what the hooks left.
For one text, hook_resid_pre/post, hook_z, the stored hook_attn_out/hook_mlp_out and the logits are views of the
trace (no copy; read-only). A long input keeps no attention maps and no layer outputs: they are recomputed when read,
as the window does.)";

}  // namespace

constexpr const char* kHooksDoc =
    R"(Runs the input with forward hooks and returns the logits [batch, pos, vocab] (None for return_type=None or a
model without a vocabulary), as TransformerLens's run_with_hooks.

input: as run_with_cache's (a text gets a BOS only where the model's tokenizer adds one: none for GPT-2, unlike
TransformerLens's default; ids are taken as given).
fwd_hooks: a list of (name, fn) pairs; name is a hook name (as in run_with_cache, model.hook_names lists them) or a
function name -> bool choosing several. fn(activation, hook) gets a float32 array of TransformerLens's shape —
residual streams, attn_out, mlp_out [batch, pos, d_model]; q, k, v, z [batch, pos, head, d_head] (k and v with the
key/value heads); attn_scores and pattern [batch, head, query, key] — and `hook.name`, `hook.layer`. The array is a
copy that is written back after fn returns: changes made in place count, and an array fn returns (same shape,
float32) replaces it. The forward pass continues from those values: ablations, patching, steering. Hooks that return
nothing and change nothing only read. Several hooks on one name run in the order given, after those of an open
`with model.hooks(...)` block (Model.hooks).

Each text of a batch is its own forward pass: the hooks are called once per text with batch 1.
Sites: q and k of rotary models are after the rotation; hook_attn_scores is masked (-inf where the query does not
see the key) and the pattern is the softmax of what the hook leaves; hook_embed is the W_E rows (before a decoder's
embedding scale); hook_pos_embed (GPT-2) the position rows; ln_final.hook_normalized is the final stream centred
and divided by its scale, before the norm's weights. The trained tiny models have no hook_attn_scores.
Errors: KeyError for an unknown hook name (naming the near ones), TypeError / ValueError for a wrong dtype / shape
returned, and an exception inside a hook is raised again with the hook's name in its message (the original as
__cause__). The model is unchanged by any of them.)";

constexpr const char* kForwardDoc =
    R"(The logits [batch, pos, d_vocab] of the input (a text, texts of one token length, ids), as TransformerLens's
model(input): run_with_hooks without hooks of its own, so inside `with model.hooks(...)` those hooks run.
return_type None: no logits (returns None).)";

constexpr const char* kContextDoc =
    R"(TransformerLens's context manager for forward hooks:

    with model.hooks(fwd_hooks=[("blocks.0.attn.hook_z", zero_head_3)]):
        logits, cache = model.run_with_cache(text)      # the hooked run, and its activations
        logits = model(text)                            # forward and run_with_hooks run them too

Inside the block every forward, run_with_hooks and run_with_cache of this model runs these hooks (fwd_hooks as in
run_with_hooks; names and functions are checked here), before run_with_hooks' own hooks, as TransformerLens runs
them. The cache of run_with_cache holds what the hooks left: a hooked site's value after every hook on it (as
TransformerLens's caching hooks, added after the user's, record it), and every later activation as computed from the
changed values. Blocks nest. Leaving the block removes the hooks it added, also when an exception leaves it;
reset_hooks_end=False keeps them on the model until model.reset_hooks(). The `as` target is the model.)";

PYBIND11_MODULE(_attnlab, m) {
  m.doc() = kModuleDoc;
  // The core's InputError is the user's mistake (bad text, unknown head, too long): a ValueError with its message.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const Cancelled& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });

  py::class_<ActivationCache>(m, "ActivationCache",
                              "The activations of one run_with_cache call, by TransformerLens's hook names.")
      .def("__getitem__", &ActivationCache::get, py::arg("name"),
           "The activation of a hook as a float32 NumPy array (made on the first read, then kept).")
      .def("__contains__", &ActivationCache::contains, py::arg("name"), "Whether the cache holds this hook.")
      .def(
          "__len__", [](const ActivationCache& c) { return c.keys().size(); }, "The number of hooks held.")
      .def(
          "__iter__", [](const ActivationCache& c) { return py::iter(py::cast(c.keys())); },
          "Iterates over the hook names, in TransformerLens's order.")
      .def("keys", &ActivationCache::keys, "The hook names this cache holds, in TransformerLens's order.")
      .def(
          "items",
          [](ActivationCache& c) {
            py::list out;
            for (const std::string& name : c.keys()) out.append(py::make_tuple(name, c.get(name)));
            return out;
          },
          "(name, array) for every hook held (makes every array: a long input's maps are recomputed).")
      .def_property_readonly("all_hook_names", &ActivationCache::allNames,
                             "Every hook name of the traced model, whatever names_filter kept.")
      .def("__repr__", [](const ActivationCache& c) {
        return "<attnlab.ActivationCache: " + std::to_string(c.keys().size()) + " hooks, batch " +
               std::to_string(c.batch()) + ", " + std::to_string(c.traces()[0]->tokenCount()) + " tokens>";
      });

  py::class_<PyTokenizer>(m, "Tokenizer", "The model's tokenizer, as the program runs it.")
      .def(
          "encode", [](const PyTokenizer& t, const std::string& text) { return t.model.model->tokenize(text).ids; },
          py::arg("text"), "Token ids of a text (a BOS only where the model's tokenizer adds one).")
      .def(
          "decode",
          [](const PyTokenizer& t, const std::vector<int>& ids) {
            const TokenDisplayStyle style = styleOf(t.model.info);
            std::string bytes;
            for (int id : ids) bytes += tokenBytes(t.model.model->vocabularyPiece(id), style);
            return py::bytes(bytes).attr("decode")("utf-8", "replace");
          },
          py::arg("ids"), "The text of token ids (bytes that are not UTF-8 become U+FFFD).")
      .def(
          "piece", [](const PyTokenizer& t, int id) { return t.model.model->vocabularyPiece(id); }, py::arg("id"),
          "The vocabulary piece of an id (\"Ġcat\"); \"\" out of range.")
      .def(
          "id_of", [](const PyTokenizer& t, const std::string& piece) { return t.model.model->vocabularyId(piece); },
          py::arg("piece"), "The id of a vocabulary piece; -1 when unknown.")
      .def_property_readonly(
          "vocab_size", [](const PyTokenizer& t) { return t.model.model->vocabularySize(); },
          "Ids 0 … vocab_size - 1 (0 for the built-in model, which reads words).");

  py::class_<LoadedModel> model(m, "Model", "A model opened by attnlab.load.");
  model
      .def_property_readonly("cfg", &configOf,
                             "Sizes: n_layers, n_heads, d_model, d_head, n_ctx, d_vocab, n_key_value_heads, "
                             "model_name, kind, and describe (the program's dump \"config\").")
      .def_property_readonly(
          "tokenizer", [](const LoadedModel& lm) { return PyTokenizer{lm}; },
          "The model's tokenizer (encode, decode, piece, id_of, vocab_size).")
      .def("to_tokens", &toTokens, py::arg("input"),
           "Token ids int64 [batch, pos] of a text or a list of same-length texts, tokenized as the program does "
           "(a BOS only where the model's tokenizer adds one: none for GPT-2, unlike TransformerLens's default).")
      .def("to_str_tokens", &toStrTokens, py::arg("input"),
           "The text each token stands for (\" cat\", not the vocabulary's \"Ġcat\") of a text or of ids (a list of "
           "lists for a batch).")
      .def("run_with_cache", &runWithCache, py::arg("input"), py::arg("names_filter") = py::none(),
           py::arg("return_type") = "logits", py::arg("maps") = "auto", kRunDoc)
      .def("run_with_hooks", &runWithHooks, py::arg("input"), py::arg("fwd_hooks") = py::list(),
           py::arg("return_type") = "logits", kHooksDoc)
      .def(
          "forward",
          [](const LoadedModel& lm, py::handle input, py::handle returnType) {
            return runWithHooks(lm, input, py::list(), returnType);
          },
          py::arg("input"), py::arg("return_type") = "logits", kForwardDoc)
      .def(
          "__call__",
          [](const LoadedModel& lm, py::handle input, py::handle returnType) {
            return runWithHooks(lm, input, py::list(), returnType);
          },
          py::arg("input"), py::arg("return_type") = "logits", "model(input) is model.forward(input).")
      .def_property_readonly("hook_names", &hookableNames,
                             "Every hook name run_with_hooks accepts, in TransformerLens's order.")
      .def("__repr__", [](const LoadedModel& lm) {
        return "<attnlab.Model " + lm.info.name + ": " + std::to_string(lm.info.layers) + " layers × " +
               std::to_string(lm.info.heads) + " heads, d_model " + std::to_string(lm.info.dModel) + ">";
      });
  registerHooksContext(m, model, kContextDoc);  // model.hooks(...), model.reset_hooks() (py_hooks.cpp)

  m.def("load", &py_module::loadModel, py::arg("model") = "builtin",
        "Opens a model as the program does: a checkpoint folder (GPT-2, BERT, Llama, Mistral, Qwen, SmolLM, Gemma, "
        "a model saved by the Training view), \"builtin:induction\" (the shipped induction model) or \"builtin\" "
        "(the built-in random transformer). Raises ValueError naming the problem.");
  m.def("predict", &py_module::predictTop, py::arg("model"), py::arg("text"), py::arg("position") = py::none(),
        py::arg("top") = 10, py::arg("temperature") = 1.0, py::arg("ablate") = py::none(),
        py::arg("ablate_mode") = "zero", py::arg("resample_text") = py::none(),
        "The top tokens at a position, as `attnlab predict` (same numbers): a dict of position, ids (int64 [top]), "
        "tokens, logits and probs (float64 [top]). position None: the last token (a masked LM: its first [MASK]). "
        "ablate: heads switched off, as \"L.H\" strings or (layer, head) pairs; ablate_mode \"zero\", \"mean\" or "
        "\"resample\" (the heads' outputs from a run of resample_text, at least as long), as --ablate-mode.");
  m.def("attribute", &py_module::attribute, py::arg("model"), py::arg("text"), py::arg("target") = py::none(),
        py::arg("versus") = py::none(), py::arg("position") = py::none(),
        "Direct logit attribution, as `attnlab attribute`: each head's (heads float64 [layers, heads]), MLP's (mlp "
        "[layers]), the embeddings' and the biases' share of logit(target) at the position, adding up to logit. "
        "target / versus: an id or a vocabulary piece (target None: the top prediction); with versus, d[\"versus\"] "
        "holds the same parts of logit(target) - logit(versus).");
  m.def("patch", &py_module::patch, py::arg("model"), py::arg("clean"), py::arg("corrupt"), py::arg("target"),
        py::arg("versus"), py::arg("residual") = true, py::arg("map") = py::none(), py::arg("ablate") = py::none(),
        py::arg("ablate_mode") = "zero", py::arg("resample_text") = py::none(),
        "Activation patching, as `attnlab patch`: (patched - corrupt) / (clean - corrupt) of logit(target) - "
        "logit(versus) at the last token when each head (heads [layers, heads]) or the residual stream entering "
        "each layer at each position (resid [layers + 1, pos]) is copied from the clean run into the corrupted one. "
        "The texts must have the same token length. map (None: \"all\" with residual, else \"heads\"): \"all\", "
        "\"heads\", \"positions\" or \"head-position\" (head_positions [layers·heads, pos]), as --map; ablate, "
        "ablate_mode, resample_text as predict's: heads off in every run. Also map, first_difference (the first "
        "position where the texts differ), runs and skipped (patched runs computed / not needed), warning (when clean "
        "and corrupt differ too little to trust the map), as the command line's JSON.");
  m.def("head_scores", &py_module::headScores, py::arg("model"), py::arg("probe_length") = 64,
        py::arg("probe_seed") = 0,
        "The head atlas on the probe BOS r1..rT r1..rT of random tokens, as `attnlab heads`: metrics (a dict of "
        "float64 [layers, heads]: previous_token, induction, duplicate_token, bos, entropy, mean_distance, copying), "
        "similarity [L·H, L·H], cluster_order, map_2d, the probe and notes. A probe longer than the model's context is "
        "shortened to fit (said in notes).");
  m.def("spectrum", &py_module::spectrum, py::arg("model"), py::arg("text"), py::arg("layer"), py::arg("head"),
        "One head's spectra in double, as `attnlab dump --spectrum`: singular values, ranks and eigenvalues of its "
        "attention, its scores and exp(scores), as a dict of float64 arrays.");
  m.def("collapse", &py_module::collapse,
        "The rank-collapse experiment, as `attnlab collapse` (the same keywords: depth, tokens, d_model, heads, "
        "seeds, seed, init, mlp_gain, configs, variant, norm, input, sentence, path_samples, paths): depths and, per "
        "stack configuration, the median, min and max relative residual (float64 arrays).");
  m.def("_last_run_engine_seconds", &lastRunEngineSeconds,
        "Seconds the last run_with_cache without hooks spent in the engine (forward passes and logits, the GIL "
        "released); bench/bench_python.py sets it against the whole call.");
  registerShow(m);  // attnlab.figure / show / executable / read_session (py_show.cpp)
}
