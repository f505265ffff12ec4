#include "python/py_hooks.h"

#include <pybind11/stl.h>

#include <exception>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "core/base/errors.h"
#include "core/model/forward_hooks.h"

namespace attnlab::py_module {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The site of ln_final.hook_normalized: not in the core's forward (the module makes the logits), so outside HookSite.
constexpr int kFinalSite = -1;

struct SiteKey {
  int site = 0, layer = -1;  ///< HookSite as int (kFinalSite: ln_final), layer −1 outside the layers
  bool operator<(const SiteKey& o) const { return site != o.site ? site < o.site : layer < o.layer; }
};

const std::vector<std::pair<const char*, HookSite>>& layerParts() {
  static const std::vector<std::pair<const char*, HookSite>> parts = {{"hook_resid_pre", HookSite::ResidPre},
                                                                      {"attn.hook_q", HookSite::Q},
                                                                      {"attn.hook_k", HookSite::K},
                                                                      {"attn.hook_v", HookSite::V},
                                                                      {"attn.hook_attn_scores", HookSite::Scores},
                                                                      {"attn.hook_pattern", HookSite::Pattern},
                                                                      {"attn.hook_z", HookSite::Z},
                                                                      {"hook_attn_out", HookSite::AttnOut},
                                                                      {"hook_resid_mid", HookSite::ResidMid},
                                                                      {"hook_mlp_out", HookSite::MlpOut},
                                                                      {"hook_resid_post", HookSite::ResidPost}};
  return parts;
}

bool hasFinalNorm(const LoadedModel& m) {
  const Unembedding* u = m.model->unembedding();
  return u && !u->hasTransform() && u->norm != Unembedding::Norm::None;
}

/// name → site, for the names hookableNames lists.
std::map<std::string, SiteKey> siteMap(const LoadedModel& m) {
  std::map<std::string, SiteKey> sites;
  const bool ids = m.info.kind != "builtin" && m.model->tokenEmbeddings().data() != nullptr;
  if (ids) {
    sites["hook_embed"] = {static_cast<int>(HookSite::Embed), -1};
    if (m.info.kind == "gpt2" || m.info.kind == "tiny")
      sites["hook_pos_embed"] = {static_cast<int>(HookSite::PosEmbed), -1};
  }
  for (int l = 0; l < m.info.layers; ++l)
    for (const auto& [part, site] : layerParts())
      sites["blocks." + std::to_string(l) + "." + part] = {static_cast<int>(site), l};
  if (hasFinalNorm(m)) sites["ln_final.hook_normalized"] = {kFinalSite, -1};
  return sites;
}

/// One hook function and the name it was registered under (hook.name).
struct Registered {
  std::string name;
  py::object fn, hookPoint;
  bool named = true;  ///< registered by its name (false: chosen by a name filter)
};

/// A hook's failure, kept while the C++ forward unwinds (thrown as HookAbort through core/).
struct HookAbort : std::exception {
  const char* what() const noexcept override { return "a Python hook raised"; }
};

/// The hooks of one call as the core's ForwardHooks: TransformerLens-shaped float32 copies of the activations.
class PyHooks : public ForwardHooks {
 public:
  PyHooks(std::map<SiteKey, std::vector<Registered>> hooks, int heads, int dHead, bool record)
      : hooks_(std::move(hooks)), heads_(heads), dHead_(dHead), record_(record) {}

  bool wants(HookSite site, int layer) const override {
    const SiteKey key{static_cast<int>(site), layer};
    offered_.insert(key);
    return hooks_.count(key) > 0;
  }

  void call(HookSite site, int layer, Eigen::Ref<Mat> m) const override {
    const py::ssize_t n = m.rows(), cols = m.cols();
    const bool perHead = site == HookSite::Q || site == HookSite::K || site == HookSite::V || site == HookSite::Z;
    std::vector<py::ssize_t> shape =
        perHead ? std::vector<py::ssize_t>{1, n, cols / dHead_, dHead_} : std::vector<py::ssize_t>{1, n, cols};
    py::gil_scoped_acquire gil;
    py::array_t<float> a = newFloatArray(shape);
    RowMajor::MapType(a.mutable_data(), n, cols) = m;
    a = runFns({static_cast<int>(site), layer}, a);
    m = RowMajor::ConstMapType(a.data(), n, cols);
  }

  void callMaps(HookSite site, int layer, std::vector<Mat>& maps) const override {
    const py::ssize_t heads = static_cast<py::ssize_t>(maps.size()), n = maps.empty() ? 0 : maps[0].rows();
    py::gil_scoped_acquire gil;
    py::array_t<float> a = newFloatArray({1, heads, n, n});
    for (py::ssize_t h = 0; h < heads; ++h) RowMajor::MapType(a.mutable_data() + h * n * n, n, n) = maps[h];
    a = runFns({static_cast<int>(site), layer}, a);
    for (py::ssize_t h = 0; h < heads; ++h) maps[h] = RowMajor::ConstMapType(a.data() + h * n * n, n, n);
  }

  /// ln_final.hook_normalized on y [n, d] (GIL held).
  void callFinal(Mat& y) const {
    const py::ssize_t n = y.rows(), d = y.cols();
    py::array_t<float> a = newFloatArray({1, n, d});
    RowMajor::MapType(a.mutable_data(), n, d) = y;
    a = runFns({kFinalSite, -1}, a);
    y = RowMajor::ConstMapType(a.data(), n, d);
  }

  bool has(const SiteKey& key) const { return hooks_.count(key) > 0; }
  /// With `record`: each hooked site's value as its hooks left it, one [1, …] copy per pass (text), in order.
  const std::map<SiteKey, std::vector<py::array>>& recorded() const { return recorded_; }
  const std::set<SiteKey>& offered() const { return offered_; }
  const std::map<SiteKey, std::vector<Registered>>& hooks() const { return hooks_; }

  /// Raises the kept failure as a Python exception (GIL held): the hook's own exception type, its message prefixed
  /// with the hook's name, the original as __cause__.
  [[noreturn]] void raise() const {
    py::object error = error_,
               type = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())));
    py::object raised = error;
    if (prefix_) {
      try {
        raised = type("hook '" + failedName_ + "': " + py::str(error).cast<std::string>());
        raised.attr("__cause__") = error;
      } catch (py::error_already_set&) {  // a type that takes other arguments: the original, with a note
        raised = error;
        if (py::hasattr(raised, "add_note")) raised.attr("add_note")("in hook '" + failedName_ + "'");
      }
    }
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(raised.ptr())), raised.ptr());
    throw py::error_already_set();
  }

 private:
  /// Every function hooked at `key` in turn on `a`; a returned array replaces it. Stops the pass on any failure.
  py::array_t<float> runFns(const SiteKey& key, py::array_t<float> a) const {
    const std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
    for (const Registered& r : hooks_.at(key)) {
      py::object out;
      try {
        out = r.fn(a, r.hookPoint);
      } catch (py::error_already_set& e) {
        fail(r.name, e.value(), true);
      }
      if (out.is_none()) continue;
      std::string problem;
      if (!py::isinstance<py::array>(out)) {
        problem = "returned " + py::str(py::type::of(out).attr("__name__")).cast<std::string>() + ", not an array";
      } else {
        const py::array o = py::reinterpret_borrow<py::array>(out);
        const std::vector<py::ssize_t> got(o.shape(), o.shape() + o.ndim());
        if (!o.dtype().equal(py::dtype::of<float>()))
          problem = "returned dtype " + py::str(o.dtype()).cast<std::string>();
        else if (got != shape)
          problem = "returned shape " + py::str(py::tuple(py::cast(got))).cast<std::string>();
        else
          a = py::array_t<float, py::array::c_style | py::array::forcecast>(o);  // C order for the copy back
      }
      if (!problem.empty()) {
        const std::string message = "hook '" + r.name + "' " + problem + "; expected float32 of shape " +
                                    py::str(py::tuple(py::cast(shape))).cast<std::string>() + " (its input's)";
        fail(r.name,
             py::reinterpret_steal<py::object>(PyObject_CallFunction(
                 py::isinstance<py::array>(out) && problem.find("dtype") == std::string::npos ? PyExc_ValueError
                                                                                              : PyExc_TypeError,
                 "s", message.c_str())),
             false);
      }
    }
    // What the pass continues from, as TransformerLens's cache (its caching hook runs after the user's) records it.
    if (record_) recorded_[key].push_back(py::array(a.attr("copy")()));
    return a;
  }

  [[noreturn]] void fail(const std::string& name, py::object error, bool prefix) const {
    error_ = std::move(error);
    failedName_ = name;
    prefix_ = prefix;
    throw HookAbort();
  }

  std::map<SiteKey, std::vector<Registered>> hooks_;
  int heads_ = 0, dHead_ = 0;
  bool record_ = false;
  mutable std::map<SiteKey, std::vector<py::array>> recorded_;
  mutable std::set<SiteKey> offered_;
  mutable py::object error_;
  mutable std::string failedName_;
  mutable bool prefix_ = false;
};

/// ln_final.hook_normalized's input: the final stream centred and divided by σ, before γ and β.  [n, d]
Mat finalNormalized(const Unembedding& u, const Mat& x) {
  const Vec sigma = u.scales(x);
  Mat y = x;
  if (u.norm == Unembedding::Norm::Layer) y.colwise() -= y.rowwise().mean();
  y.array().colwise() /= sigma.array();
  return y;
}

}  // namespace

void unknownHook(const std::string& name, const std::vector<std::string>& valid) {
  const py::list near =
      py::module_::import("difflib").attr("get_close_matches")(name, py::cast(valid), 6, 0.6).cast<py::list>();
  std::string message = "no hook '" + name + "' in this model";
  if (!near.empty()) {
    message += "; the nearest: ";
    for (std::size_t i = 0; i < near.size(); ++i) message += (i ? ", " : "") + near[i].cast<std::string>();
  }
  message += " (" + std::to_string(valid.size()) + " hook names in all)";
  throw py::key_error(message);
}

std::vector<std::string> hookableNames(const LoadedModel& m) {
  const std::map<std::string, SiteKey> sites = siteMap(m);
  std::vector<std::string> names;
  for (const char* top : {"hook_embed", "hook_pos_embed"})
    if (sites.count(top)) names.push_back(top);
  for (int l = 0; l < m.info.layers; ++l)
    for (const auto& part : layerParts()) names.push_back("blocks." + std::to_string(l) + "." + part.first);
  if (sites.count("ln_final.hook_normalized")) names.push_back("ln_final.hook_normalized");
  return names;
}

namespace {

using HookMap = std::map<SiteKey, std::vector<Registered>>;

/// The (name or name filter, fn) pairs of `fwdHooks` added to `hooks` (nothing for None). Raises KeyError for an
/// unknown name, ValueError for anything that is not such a pair.
void addHooks(const LoadedModel& m, py::handle fwdHooks, HookMap& hooks) {
  if (fwdHooks.is_none()) return;
  const std::map<std::string, SiteKey> sites = siteMap(m);
  const std::vector<std::string> names = hookableNames(m);
  const py::object namespaceType = py::module_::import("types").attr("SimpleNamespace");
  const auto add = [&](const std::string& name, py::handle fn, bool named) {
    const SiteKey key = sites.at(name);
    hooks[key].push_back({name, py::reinterpret_borrow<py::object>(fn),
                          namespaceType(py::arg("name") = name, py::arg("layer") = key.layer), named});
  };
  if (!py::isinstance<py::sequence>(fwdHooks) || py::isinstance<py::str>(fwdHooks))
    throw InputError("fwd_hooks must be a list of (hook name or name filter, function) pairs");
  for (py::handle item : fwdHooks) {
    if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) || py::len(item) != 2)
      throw InputError("each of fwd_hooks must be a (hook name or name filter, function) pair");
    const py::object which = item[py::int_(0)], fn = item[py::int_(1)];
    if (!PyCallable_Check(fn.ptr()))
      throw InputError("the hook for " + py::str(which).cast<std::string>() + " is not callable");
    if (py::isinstance<py::str>(which)) {
      const std::string name = which.cast<std::string>();
      if (!sites.count(name)) unknownHook(name, names);
      add(name, fn, true);
    } else if (PyCallable_Check(which.ptr())) {
      for (const std::string& name : names)
        if (py::bool_(which(name))) add(name, fn, false);
    } else {
      throw InputError("a hook's first item must be a hook name or a function of a name");
    }
  }
}

/// [B, …] of the per-pass [1, …] arrays (the one array itself for one text).
py::object stacked(const std::vector<py::array>& perText) {
  if (perText.size() == 1) return perText[0];
  return py::module_::import("numpy").attr("concatenate")(py::cast(perText), 0);
}

}  // namespace

bool hasContextHooks(const LoadedModel& m) { return py::len(*m.contextHooks) > 0; }

HookedRun runHooked(const LoadedModel& m, const std::vector<TokenizedText>& texts, py::handle fwdHooks, bool wantLogits,
                    bool record, MapKeeping maps) {
  HookMap hooks;
  addHooks(m, *m.contextHooks, hooks);  // the open `with model.hooks(...)` blocks' first, as TransformerLens's
  addHooks(m, fwdHooks, hooks);
  const Unembedding* u = m.model->unembedding();
  wantLogits = wantLogits && u;
  PyHooks pyHooks(std::move(hooks), m.info.heads, m.info.dHead, record);
  const bool finalHook = pyHooks.has({kFinalSite, -1});
  Intervention iv;
  iv.hooks = &pyHooks;
  iv.maps = maps;
  HookedRun run;
  std::vector<Mat> finals;  // each text's stream after the last layer [n, d] (normed, with a final hook)
  for (const TokenizedText& t : texts) {
    bool aborted = false;
    {
      py::gil_scoped_release release;
      try {
        auto trace = std::make_shared<Trace>(m.model->forward(t, {}, iv));
        if (wantLogits || finalHook) finals.push_back(trace->layers.back().residualOut);
        run.traces.push_back(std::move(trace));
      } catch (const HookAbort&) {
        aborted = true;
      }
    }
    if (aborted) pyHooks.raise();
    if (finalHook) {
      Mat y = finalNormalized(*u, finals.back());
      try {
        pyHooks.callFinal(y);
      } catch (const HookAbort&) {
        pyHooks.raise();
      }
      // γ ⊙ y + β: the norm's output, which the logits below take without normalising again
      y = (y.array().rowwise() * u->gamma.transpose().array()).matrix();
      if (u->beta.size() > 0) y.rowwise() += u->beta.transpose();
      finals.back() = std::move(y);
    }
  }
  // A site named that the forward never offered: this model does not compute it (an attention-only layer's MLP). A
  // name filter chooses among the sites there are, as TransformerLens's: its names there are not are left out.
  for (const auto& [key, list] : pyHooks.hooks())
    if (key.site != kFinalSite && !pyHooks.offered().count(key))
      for (const Registered& r : list)
        if (r.named)
          throw py::key_error("hook '" + r.name + "': this model's forward pass has no such activation" +
                              (key.site == static_cast<int>(HookSite::MlpOut) ? " (its layers have no MLP)" : ""));
  for (const auto& [key, perText] : pyHooks.recorded())
    run.recorded[pyHooks.hooks().at(key).front().name] = stacked(perText);
  if (!wantLogits) return run;
  py::gil_scoped_release release;
  Mat stack;
  const Eigen::Index n = finals[0].rows();
  if (finals.size() == 1) {
    stack = std::move(finals[0]);
  } else {
    stack.resize(n * static_cast<Eigen::Index>(finals.size()), finals[0].cols());
    for (std::size_t b = 0; b < finals.size(); ++b) stack.middleRows(static_cast<Eigen::Index>(b) * n, n) = finals[b];
  }
  if (finalHook) {
    Unembedding normed = *u;  // the stream is normed already
    normed.norm = Unembedding::Norm::None;
    run.logits = std::make_shared<Mat>(normed.logits(stack));
  } else {
    run.logits = std::make_shared<Mat>(u->logits(stack));
  }
  return run;
}

py::object logitsView(std::shared_ptr<Mat> logits, int batch) {
  if (!logits) return py::none();
  // [B·n, vocab] column-major: (b, p, v) at b·n + p + v·B·n — a view, no copy.
  const py::ssize_t B = batch, n = logits->rows() / B, V = logits->cols(), f = sizeof(float);
  const float* data = logits->data();
  return floatView(data, {B, n, V}, {n * f, f, B * n * f}, ownerCapsule(std::move(logits)));
}

py::object runWithHooks(const LoadedModel& m, py::handle input, py::handle fwdHooks, py::handle returnType) {
  return runWithHooksKeeping(m, input, fwdHooks, returnType, nullptr);
}

py::object runWithHooksKeeping(const LoadedModel& m, py::handle input, py::handle fwdHooks, py::handle returnType,
                               std::vector<std::shared_ptr<const Trace>>* traces) {
  const std::string kind = returnType.is_none() ? "none" : returnType.cast<std::string>();
  if (kind != "logits" && kind != "none") throw InputError("return_type must be 'logits' or None, got '" + kind + "'");
  const std::vector<TokenizedText> texts = inputsOf(m, input);
  HookedRun run = runHooked(m, texts, fwdHooks, kind == "logits", false, MapKeeping::Auto);
  if (traces) traces->insert(traces->end(), run.traces.begin(), run.traces.end());
  return logitsView(std::move(run.logits), static_cast<int>(texts.size()));
}

/// The context manager model.hooks(...) returns.
class HooksContext {
 public:
  HooksContext(py::object model, py::list added, bool reset)
      : model_(std::move(model)), added_(std::move(added)), reset_(reset) {}

  py::object enter() {
    py::list& active = *model_.cast<LoadedModel&>().contextHooks;
    for (py::handle pair : added_) active.append(pair);
    return model_;
  }

  bool exit(py::handle, py::handle, py::handle) {
    if (!reset_) return false;
    py::list& active = *model_.cast<LoadedModel&>().contextHooks;
    py::list kept;  // every pair but the ones this block added (the same objects: nested blocks keep theirs)
    for (py::handle pair : active) {
      bool mine = false;
      for (py::handle a : added_) mine = mine || a.is(pair);
      if (!mine) kept.append(pair);
    }
    active = kept;
    return false;  // an exception inside the block goes on
  }

 private:
  py::object model_;
  py::list added_;
  bool reset_ = true;
};

void registerHooksContext(py::module_& m, py::class_<LoadedModel>& model, const char* hooksDoc) {
  py::class_<HooksContext>(m, "HooksContext", "What model.hooks(...) returns: a `with` block's forward hooks.")
      .def("__enter__", &HooksContext::enter, "Adds the block's hooks to the model; returns the model.")
      .def("__exit__", &HooksContext::exit,
           "Removes the hooks this block added (unless reset_hooks_end=False), whether or not an exception is "
           "leaving the block; never swallows it.");
  model
      .def(
          "hooks",
          [](py::object self, py::handle fwdHooks, bool resetHooksEnd) {
            HookMap check;  // the names and functions checked now, not at the first run
            addHooks(self.cast<const LoadedModel&>(), fwdHooks, check);
            py::list added;
            if (!fwdHooks.is_none())
              for (py::handle pair : fwdHooks) added.append(py::tuple(py::reinterpret_borrow<py::object>(pair)));
            return HooksContext(self, added, resetHooksEnd);
          },
          py::arg("fwd_hooks") = py::list(), py::arg("reset_hooks_end") = true, hooksDoc)
      .def(
          "reset_hooks", [](LoadedModel& lm) { *lm.contextHooks = py::list(); },
          "Removes every hook model.hooks(...) added (those kept by reset_hooks_end=False too).");
}

}  // namespace attnlab::py_module
