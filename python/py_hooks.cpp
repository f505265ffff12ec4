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
  PyHooks(std::map<SiteKey, std::vector<Registered>> hooks, int heads, int dHead)
      : hooks_(std::move(hooks)), heads_(heads), dHead_(dHead) {}

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

py::object runWithHooks(const LoadedModel& m, py::handle input, py::handle fwdHooks, py::handle returnType) {
  return runWithHooksKeeping(m, input, fwdHooks, returnType, nullptr);
}

py::object runWithHooksKeeping(const LoadedModel& m, py::handle input, py::handle fwdHooks, py::handle returnType,
                               std::vector<std::shared_ptr<const Trace>>* traces) {
  const std::string kind = returnType.is_none() ? "none" : returnType.cast<std::string>();
  if (kind != "logits" && kind != "none") throw InputError("return_type must be 'logits' or None, got '" + kind + "'");
  const std::map<std::string, SiteKey> sites = siteMap(m);
  const std::vector<std::string> names = hookableNames(m);
  std::map<SiteKey, std::vector<Registered>> hooks;
  const py::object namespaceType = py::module_::import("types").attr("SimpleNamespace");
  const auto add = [&](const std::string& name, py::handle fn, bool named) {
    const SiteKey key = sites.at(name);
    hooks[key].push_back({name, py::reinterpret_borrow<py::object>(fn),
                          namespaceType(py::arg("name") = name, py::arg("layer") = key.layer), named});
  };
  if (!fwdHooks.is_none()) {
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
  const std::vector<TokenizedText> texts = inputsOf(m, input);
  const Unembedding* u = m.model->unembedding();
  const bool wantLogits = kind == "logits" && u;
  PyHooks pyHooks(std::move(hooks), m.info.heads, m.info.dHead);
  const bool finalHook = pyHooks.has({kFinalSite, -1});
  Intervention iv;
  iv.hooks = &pyHooks;
  std::vector<Mat> finals;  // each text's stream after the last layer [n, d]
  for (const TokenizedText& t : texts) {
    bool aborted = false;
    {
      py::gil_scoped_release release;
      try {
        Trace trace = m.model->forward(t, {}, iv);
        if (traces) {
          finals.push_back(trace.layers.back().residualOut);
          traces->push_back(std::make_shared<const Trace>(std::move(trace)));
        } else {
          finals.push_back(std::move(trace.layers.back().residualOut));
        }
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
  if (!wantLogits) return py::none();
  std::shared_ptr<Mat> logits;
  {
    py::gil_scoped_release release;
    Mat stacked;
    const Eigen::Index n = finals[0].rows();
    if (finals.size() == 1) {
      stacked = std::move(finals[0]);
    } else {
      stacked.resize(n * static_cast<Eigen::Index>(finals.size()), finals[0].cols());
      for (std::size_t b = 0; b < finals.size(); ++b)
        stacked.middleRows(static_cast<Eigen::Index>(b) * n, n) = finals[b];
    }
    if (finalHook) {
      Unembedding normed = *u;  // the stream is normed already
      normed.norm = Unembedding::Norm::None;
      logits = std::make_shared<Mat>(normed.logits(stacked));
    } else {
      logits = std::make_shared<Mat>(u->logits(stacked));
    }
  }
  const py::ssize_t B = static_cast<py::ssize_t>(texts.size()), n = logits->rows() / B, V = logits->cols(),
                    f = sizeof(float);
  const float* data = logits->data();
  return floatView(data, {B, n, V}, {n * f, f, B * n * f}, ownerCapsule(std::move(logits)));
}

}  // namespace attnlab::py_module
