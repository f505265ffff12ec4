#include "python/py_model.h"

#include <chrono>

#include "core/base/errors.h"
#include "core/run/model_factory.h"
#include "python/py_hooks.h"

namespace attnlab::py_module {

namespace {

double lastEngineSeconds = 0;

/// Times the engine's part of a call (the GIL released: the forward passes and the logits) into lastEngineSeconds.
struct EngineClock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  ~EngineClock() {
    lastEngineSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

}  // namespace

double lastRunEngineSeconds() { return lastEngineSeconds; }

LoadedModel loadModel(const std::string& dir) {
  LoadedModel m;
  m.params.modelDir = dir == "builtin" ? std::string() : dir;
  {
    py::gil_scoped_release release;
    m.model = makeModel(m.params);
  }
  m.info = m.model->info();
  return m;
}

py::object configOf(const LoadedModel& m) {
  const ModelInfo& i = m.info;
  return py::module_::import("types").attr("SimpleNamespace")(
      py::arg("n_layers") = i.layers, py::arg("n_heads") = i.heads, py::arg("d_model") = i.dModel,
      py::arg("d_head") = i.dHead, py::arg("n_ctx") = i.maxTokens, py::arg("d_vocab") = m.model->vocabularySize(),
      py::arg("n_key_value_heads") = i.kvHeads > 0 ? i.kvHeads : i.heads, py::arg("model_name") = i.name,
      py::arg("kind") = i.kind, py::arg("describe") = fromJson(describeModel(m.params, *m.model)));
}

py::array_t<long long> toTokens(const LoadedModel& m, py::handle input) {
  const std::vector<TokenizedText> texts = inputsOf(m, input);
  if (texts[0].ids.empty())
    throw InputError("the model '" + m.info.name + "' reads words and has no token ids (to_str_tokens lists them)");
  const auto n = static_cast<py::ssize_t>(texts[0].ids.size());
  py::array_t<long long> a({static_cast<py::ssize_t>(texts.size()), n});
  for (std::size_t b = 0; b < texts.size(); ++b)
    std::copy(texts[b].ids.begin(), texts[b].ids.end(), a.mutable_data() + static_cast<py::ssize_t>(b) * n);
  return a;
}

py::object toStrTokens(const LoadedModel& m, py::handle input) {
  const std::vector<TokenizedText> texts = inputsOf(m, input);
  py::list batch;
  for (const TokenizedText& t : texts) {
    py::list tokens;
    // The text each token stands for (" cat", not the vocabulary's "Ġcat"), as TransformerLens shows them; the
    // built-in model's words as they are.
    for (const Token& token : t.tokens)
      tokens.append(py::str(t.ids.empty() ? token.text : tokenDisplayText(token.text, styleOf(m.info))));
    batch.append(tokens);
  }
  // A batch (a list of texts or of id lists, a 2-D array) gives a list per text, even of one text.
  bool batchInput = false;
  if (py::isinstance<py::array>(input)) {
    batchInput = py::reinterpret_borrow<py::array>(input).ndim() == 2;
  } else if (!py::isinstance<py::str>(input) && py::isinstance<py::sequence>(input) && py::len(input) > 0) {
    const py::object first = input[py::int_(0)];
    batchInput = py::isinstance<py::str>(first) || py::isinstance<py::sequence>(first);
  }
  return batchInput ? py::object(batch) : py::object(batch[0]);
}

std::pair<py::object, ActivationCache> runWithCache(const LoadedModel& m, py::handle input, py::handle namesFilter,
                                                    py::handle returnType, const std::string& maps) {
  const std::string kind = returnType.is_none() ? "none" : returnType.cast<std::string>();
  if (kind != "logits" && kind != "none") throw InputError("return_type must be 'logits' or None, got '" + kind + "'");
  Intervention iv;  // none: only how the maps are kept
  if (maps == "auto")
    iv.maps = MapKeeping::Auto;
  else if (maps == "never")
    iv.maps = MapKeeping::Never;
  else if (maps == "always")
    iv.maps = MapKeeping::Always;
  else
    throw InputError("maps must be 'auto', 'never' or 'always', got '" + maps + "'");
  const std::vector<TokenizedText> texts = inputsOf(m, input);
  if (hasContextHooks(m)) {
    // Inside `with model.hooks(...)`: the hooked pass; each hooked site as its hooks left it (TransformerLens's
    // caching hook runs after the user's), the rest from the trace of that pass. Its maps and outputs are kept, not
    // recomputed later from values a hook may have changed since.
    HookedRun run = runHooked(m, texts, py::none(), kind == "logits", true,
                              iv.maps == MapKeeping::Never ? MapKeeping::Never : MapKeeping::Always);
    ActivationCache cache(m, std::move(run.traces), namesFilter);
    for (auto& [name, value] : run.recorded)
      if (cache.contains(name)) cache.preset(name, value);
    return {logitsView(std::move(run.logits), cache.batch()), std::move(cache)};
  }
  std::vector<std::shared_ptr<const Trace>> traces;
  std::shared_ptr<Mat> logits;
  {
    py::gil_scoped_release release;
    const EngineClock clock;
    for (const TokenizedText& t : texts) traces.push_back(std::make_shared<const Trace>(m.model->forward(t, {}, iv)));
    const Unembedding* u = m.model->unembedding();
    if (kind == "logits" && u) {
      // One product for the whole batch: the final streams stacked [B·n, d] → logits [B·n, vocab].
      const Eigen::Index n = traces[0]->tokenCount(), d = traces[0]->layers.back().residualOut.cols();
      if (traces.size() == 1) {
        logits = std::make_shared<Mat>(u->logits(traces[0]->layers.back().residualOut));
      } else {
        Mat finals(n * static_cast<Eigen::Index>(traces.size()), d);
        for (std::size_t b = 0; b < traces.size(); ++b)
          finals.middleRows(static_cast<Eigen::Index>(b) * n, n) = traces[b]->layers.back().residualOut;
        logits = std::make_shared<Mat>(u->logits(finals));
      }
    }
  }
  ActivationCache cache(m, std::move(traces), namesFilter);
  return {logitsView(std::move(logits), cache.batch()), std::move(cache)};
}

}  // namespace attnlab::py_module
