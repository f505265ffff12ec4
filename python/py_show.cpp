#include "python/py_show.h"

#include <pybind11/stl.h>

#include <stdlib.h>  // mkdtemp
#include <unistd.h>  // access

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/base/errors.h"
#include "core/model/run_file.h"
#include "core/session/params_json.h"
#include "core/session/session.h"
#include "core/train/shipped_models.h"
#include "python/py_cache.h"
#include "python/py_hooks.h"

namespace attnlab::py_module {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

// ---- Which program: $ATTNLAB_EXECUTABLE, the build folder's, the installed package's, PATH ----

bool isExecutableFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

/// The program beside this package: BUILD/python/attnlab/ → BUILD/app/attnlab (the build folder), and
/// PREFIX/lib/python3/dist-packages/attnlab/ → PREFIX/bin/attnlab (the .deb: python/CMakeLists.txt, packaging.cmake).
std::vector<fs::path> besideTheModule() {
  const fs::path dir =  // the folder holding the package: BUILD/python, PREFIX/lib/python3/dist-packages
      fs::path(py::module_::import("attnlab").attr("__file__").cast<std::string>()).parent_path().parent_path();
  return {(dir / ".." / "app" / "attnlab").lexically_normal(),
          (dir / ".." / ".." / ".." / "bin" / "attnlab").lexically_normal()};
}

std::string findExecutable() {
  if (const char* env = std::getenv("ATTNLAB_EXECUTABLE"); env && *env) {
    if (!isExecutableFile(env))
      raise(PyExc_FileNotFoundError,
            std::string("ATTNLAB_EXECUTABLE is '") + env + "', which is not an executable file");
    return env;
  }
  const std::vector<fs::path> beside = besideTheModule();
  for (const fs::path& p : beside)
    if (isExecutableFile(p)) return p.string();
  const py::object onPath = py::module_::import("shutil").attr("which")("attnlab");
  if (!onPath.is_none()) return onPath.cast<std::string>();
  raise(PyExc_FileNotFoundError, "the program attnlab was not found (looked at " + beside[0].string() + ", " +
                                     beside[1].string() +
                                     " and on PATH): install the attnlab package, or set ATTNLAB_EXECUTABLE to the "
                                     "program");
}

// ---- What a cache stands for ----

/// The run a figure or a window shows: the model's parameters and one text, and the trace to hand over (a cache's, or
/// the run of fwd_hooks) — null: the program runs the text itself.
struct RunSource {
  Params params;
  ModelInfo info;
  std::string text;
  int vocabularySize = 0;
  std::shared_ptr<const Trace> trace;
};

/// What Model.run_with_cache was called with, by the cache's first trace. The weak pointer keeps that trace's
/// storage (made by make_shared) from being reused while the entry lives, so a stale entry never matches a new cache;
/// entries of dead traces are dropped on the next call. Only touched with the GIL held.
struct Provenance {
  std::weak_ptr<const Trace> trace;
  RunSource source;
  std::string whyNot;  ///< not empty: the cache stands for no single text (token ids, a batch)
};

std::map<const Trace*, Provenance>& provenances() {
  static std::map<const Trace*, Provenance> table;
  return table;
}

void dropDead() {
  auto& table = provenances();
  for (auto it = table.begin(); it != table.end();) it = it->second.trace.expired() ? table.erase(it) : std::next(it);
}

void remember(const LoadedModel& m, py::handle input, const ActivationCache& cache) {
  dropDead();
  Provenance p{cache.traces()[0], {m.params, m.info, {}, m.model->vocabularySize(), nullptr}, {}};
  if (input && py::isinstance<py::str>(input)) {
    p.source.text = input.cast<std::string>();
  } else if (cache.batch() > 1) {
    p.whyNot = "the cache holds a batch of " + std::to_string(cache.batch()) + " texts";
  } else if (input && py::isinstance<py::list>(input) && py::len(input) == 1 &&
             py::isinstance<py::str>(input[py::int_(0)])) {
    p.source.text = input[py::int_(0)].cast<std::string>();
  } else {
    p.whyNot = "the cache was made from token ids, not from a text";
  }
  provenances()[cache.traces()[0].get()] = std::move(p);
}

/// Model.run_with_cache, remembering the model and text of the cache it returns (module.cpp binds the original).
void wrapRunWithCache(py::module_& m) {
  py::object cls = m.attr("Model");
  py::object original = cls.attr("run_with_cache");
  static const std::string doc = py::str(original.attr("__doc__")).cast<std::string>();
  py::options signatures;  // the original's docstring already starts with its signature
  signatures.disable_function_signatures();
  cls.attr("run_with_cache") = py::cpp_function(
      [original](py::object self, py::args args, py::kwargs kwargs) {
        py::object out = original(self, *args, **kwargs);
        py::handle input = args.size() > 0 ? py::handle(args[0]) : py::handle();
        if (!input && kwargs.contains("input")) input = kwargs["input"];
        remember(self.cast<const LoadedModel&>(), input, out.cast<py::tuple>()[1].cast<const ActivationCache&>());
        return out;
      },
      py::name("run_with_cache"), py::is_method(cls), py::sibling(py::none()), doc.c_str());
}

bool hasHooks(py::handle fwdHooks) {
  return !fwdHooks.is_none() && !(py::isinstance<py::sequence>(fwdHooks) && py::len(fwdHooks) == 0);
}

RunSource sourceOf(py::handle modelOrCache, py::handle text, py::handle fwdHooks, const char* function) {
  if (py::isinstance<LoadedModel>(modelOrCache)) {
    if (!py::isinstance<py::str>(text))
      raise(PyExc_TypeError, std::string("attnlab.") + function + ": with a Model, pass the text (a str)");
    const LoadedModel& m = modelOrCache.cast<const LoadedModel&>();
    inputsOf(m, text);  // the module's checks: no tokens, too long (with the numbers)
    RunSource source{m.params, m.info, text.cast<std::string>(), m.model->vocabularySize(), nullptr};
    if (hasHooks(fwdHooks)) {  // the hooked run, as run_with_hooks makes it (its errors raised here)
      std::vector<std::shared_ptr<const Trace>> traces;
      runWithHooksKeeping(m, text, fwdHooks, py::none(), &traces);
      source.trace = traces.at(0);
    }
    return source;
  }
  if (!py::isinstance<ActivationCache>(modelOrCache))
    raise(PyExc_TypeError, std::string("attnlab.") + function + ": expected an attnlab.Model or ActivationCache, got " +
                               py::str(py::type::handle_of(modelOrCache).attr("__name__")).cast<std::string>());
  if (!text.is_none())
    throw InputError(std::string("attnlab.") + function +
                     ": a cache stands for its own text; pass text=None (or the model and a text)");
  if (hasHooks(fwdHooks))
    raise(PyExc_TypeError,
          std::string("attnlab.") + function +
              ": a cache is a run already made; fwd_hooks runs the model: pass the model and the text");
  const std::shared_ptr<const Trace>& first = modelOrCache.cast<const ActivationCache&>().traces()[0];
  dropDead();
  const auto it = provenances().find(first.get());
  if (it == provenances().end())
    throw InputError(std::string("attnlab.") + function +
                     ": this cache was not made by Model.run_with_cache from a text (a run whose activations hooks "
                     "changed cannot be re-run from its text); pass the model and the text");
  if (!it->second.whyNot.empty())
    throw InputError(std::string("attnlab.") + function + ": " + it->second.whyNot + "; pass the model and the text");
  RunSource source = it->second.source;
  source.trace = first;  // the cache's own run: also one made under hooks is shown as it is
  return source;
}

// ---- The session file the program reads ----

/// The session of a run with the view, layer and head selected. A checkpoint folder is made absolute: the program
/// runs in this process's folder, but the file may be opened again from elsewhere.
Params paramsOf(const RunSource& s) {
  Params p = s.params;
  p.sentence = s.text;
  if (!p.modelDir.empty() && !isShippedModelName(p.modelDir))
    p.modelDir = fs::absolute(p.modelDir).lexically_normal().string();
  return p;
}

nlohmann::json sessionOf(const RunSource& s, const std::string& view, int layer, int head) {
  Params p = paramsOf(s);
  p.selection.view = view;
  p.selection.layer = layer;
  p.selection.head = head;
  return sessionToJson(p);
}

/// The run file (core/model/run_file.h) of a source that hands its trace over, in `folder`; "" for one that does not.
std::string writeRun(const RunSource& s, const fs::path& folder) {
  if (!s.trace) return {};
  const Params p = paramsOf(s);
  RunFileModel model{s.info, p.modelDir, p.modelDir.empty() ? toJson(p.model) : nlohmann::json(), s.vocabularySize};
  const fs::path file = folder / "run.attnlab-run";
  {
    py::gil_scoped_release release;  // a long run's file is large
    writeRunFile(file.string(), *s.trace, model);
  }
  return file.string();
}

/// A new folder in the temporary directory ($TMPDIR), named prefix-XXXXXX.
fs::path makeTempFolder(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) raise(PyExc_OSError, "cannot make a folder in " + fs::temp_directory_path().string());
  return pattern;
}

void writeSession(const fs::path& file, const nlohmann::json& session) {
  std::ofstream out(file);
  out << session.dump(2) << "\n";
  if (!out.flush()) raise(PyExc_OSError, "cannot write the session file " + file.string());
}

/// Removes a temporary folder when the call ends, however it ends.
struct TempFolder {
  fs::path path;
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// `attnlab ARGS` to its end, on Qt's offscreen platform (in the child's environment only): its standard error
/// becomes the exception's message (ValueError for the program's "input is wrong" and usage statuses 1 and 2).
py::object runProgram(const std::vector<std::string>& args, py::handle timeout) {
  const py::module_ subprocess = py::module_::import("subprocess");
  py::dict env = py::module_::import("os").attr("environ").attr("copy")();
  env["QT_QPA_PLATFORM"] = "offscreen";
  py::object done =
      subprocess.attr("run")(args, py::arg("env") = env, py::arg("capture_output") = true, py::arg("text") = true,
                             py::arg("timeout") = timeout, py::arg("stdin") = subprocess.attr("DEVNULL"));
  const int status = done.attr("returncode").cast<int>();
  if (status == 0) return done;
  std::string message = py::str(done.attr("stderr")).attr("strip")().cast<std::string>();
  for (const std::string& prefix : {"attnlab " + args[1] + ": error: ", std::string("attnlab: error: ")})
    if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
  if (status == 1 || status == 2) throw InputError(message);
  raise(PyExc_RuntimeError, "attnlab " + args[1] + " ended with status " + std::to_string(status) +
                                (message.empty() ? std::string() : ": " + message));
}

std::vector<std::string> viewNames(const std::string& program) {
  const py::object done = runProgram({program, "export", "--list-views"}, py::none());
  std::istringstream lines(done.attr("stdout").cast<std::string>());
  std::vector<std::string> names;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) names.push_back(line);
  return names;
}

void checkSelection(const RunSource& s, const std::string& program, const std::string& view, int layer, int head) {
  if (layer < 0 || layer >= s.info.layers)
    throw InputError("layer " + std::to_string(layer) + " does not exist: the model has " +
                     std::to_string(s.info.layers) + " layers (0-based)");
  if (head < 0 || head >= s.info.heads)
    throw InputError("head " + std::to_string(head) + " does not exist: layer " + std::to_string(layer) + " has " +
                     std::to_string(s.info.heads) + " heads (0-based)");
  const std::vector<std::string> views = viewNames(program);
  if (std::find(views.begin(), views.end(), view) == views.end()) {
    std::string known;
    for (const std::string& v : views) known += (known.empty() ? "" : ", ") + v;
    throw InputError("unknown view '" + view + "' (known: " + known + ")");
  }
}

// ---- The functions ----

py::str figure(py::handle modelOrCache, py::handle text, py::handle path, const std::string& view, int layer, int head,
               py::handle preset, py::handle width, py::handle height, py::handle dpi, py::handle format,
               py::handle fontScale, py::handle timeout, py::handle fwdHooks) {
  if (path.is_none()) raise(PyExc_TypeError, "attnlab.figure: pass the file to write as path=");
  const std::string out = py::module_::import("os").attr("fspath")(path).cast<std::string>();
  const RunSource source = sourceOf(modelOrCache, text, fwdHooks, "figure");
  const std::string program = findExecutable();
  const TempFolder folder{makeTempFolder("attnlab-figure")};
  const fs::path session = folder.path / "figure.attnlab.json";
  writeSession(session, sessionOf(source, view, layer, head));
  // The session names the view: `export --params FILE` renders the session's own figure.
  std::vector<std::string> args = {program, "export", "--params", session.string(), "--out", out};
  if (const std::string run = writeRun(source, folder.path); !run.empty()) args.insert(args.end(), {"--run", run});
  const std::pair<const char*, py::handle> options[] = {{"--preset", preset}, {"--width", width},
                                                        {"--height", height}, {"--dpi", dpi},
                                                        {"--format", format}, {"--font-scale", fontScale}};
  for (const auto& [flag, value] : options)
    if (!value.is_none()) {
      args.push_back(flag);
      args.push_back(py::str(value).cast<std::string>());
    }
  runProgram(args, timeout);
  return py::str(out);
}

py::object show(py::handle modelOrCache, py::handle text, const std::string& view, int layer, int head,
                py::handle fwdHooks) {
  const RunSource source = sourceOf(modelOrCache, text, fwdHooks, "show");
  const std::string program = findExecutable();
  checkSelection(source, program, view, layer, head);  // here, not in a message box of the window
  const py::object environ = py::module_::import("os").attr("environ");
  if (!environ.contains("DISPLAY") && !environ.contains("WAYLAND_DISPLAY") && !environ.contains("QT_QPA_PLATFORM"))
    raise(PyExc_RuntimeError,
          "attnlab.show: no display (DISPLAY and WAYLAND_DISPLAY are unset); attnlab.figure writes the view to a file "
          "without one");
  // Kept after the call: the window reads it and may save to it (File ▸ Save); the temporary folder's owner clears it.
  const fs::path folder = makeTempFolder("attnlab-show");
  const fs::path session = folder / "session.attnlab.json", log = folder / "attnlab.log";
  writeSession(session, sessionOf(source, view, layer, head));
  std::vector<std::string> command = {program, session.string()};
  if (const std::string run = writeRun(source, folder); !run.empty())
    command.insert(command.begin() + 1, {"--run", run});
  const py::module_ subprocess = py::module_::import("subprocess");
  const py::object logFile = py::module_::import("builtins").attr("open")(log.string(), "wb");
  py::object child;
  try {
    // A session of its own: the notebook's Ctrl-C (an interrupted cell) does not close the window.
    child =
        subprocess.attr("Popen")(command, py::arg("stdin") = subprocess.attr("DEVNULL"), py::arg("stdout") = logFile,
                                 py::arg("stderr") = subprocess.attr("STDOUT"), py::arg("start_new_session") = true);
  } catch (...) {
    logFile.attr("close")();
    throw;
  }
  logFile.attr("close")();
  child.attr("session") = session.string();
  child.attr("log") = log.string();
  child.attr("run") =
      source.trace ? py::object(py::str((folder / "run.attnlab-run").string())) : py::object(py::none());
  return child;
}

py::object readSession(py::handle path) {
  const std::string file = py::module_::import("os").attr("fspath")(path).cast<std::string>();
  std::ifstream in(file, std::ios::binary);
  if (!in) raise(PyExc_FileNotFoundError, "cannot read the session file " + file);
  std::ostringstream text;
  text << in.rdbuf();
  const Params p = sessionFromText(text.str(), file);
  return py::module_::import("json").attr("loads")(sessionToJson(p).dump());
}

constexpr const char* kFigureDoc = R"(Exports a view of a run as a figure or its numbers, as `attnlab export` does.

figure(model, text, path, ...) or figure(cache, path=path, ...): the run of a text, given as the model and the text
or as a cache made by model.run_with_cache(text) (which remembers both; a cache of token ids or of a batch raises
ValueError).
fwd_hooks: with the model and the text, a list of (name, fn) as model.run_with_hooks takes: the figure is of that
    hooked run (an ablation, a patch, steering), not of the plain one. A cache's figure is of the cache's own run.
path: the file to write; its extension (or format) chooses png, svg, pdf, csv (the view's numbers with token
    labels), json or npy (for numpy.load).
view: a view name of `attnlab export --list-views` ("heatmap", "headview", "qkv", "spectrum", "prediction", ...);
    layer and head select the head it shows.
preset: "slide-16x9", "slide-4x3", "column" or "page" (a named size, PNG at dpi, default 300); or width and height
    in pixels (default 1200 × 900), dpi, font_scale.
timeout: seconds to wait (None: until it is written).

The program's executable renders it headlessly (Qt's offscreen platform, in its environment only) from a session
file and, for a cache or fwd_hooks, a run file of the traced run (`attnlab export --run FILE`: the program draws that
run instead of computing it); attnlab.executable() says which program. Returns path. A bad view, layer or head, or a path that cannot be
written, raises ValueError with the program's message.)";

constexpr const char* kShowDoc = R"(Opens the desktop program's window on a run, not waiting for it.

show(model, text, ...) or show(cache, ...): the run of a text, given as the model and the text or as a cache made by
model.run_with_cache(text) (a cache of token ids or of a batch raises ValueError; pass the model and the text).
fwd_hooks: with the model and the text, a list of (name, fn) as model.run_with_hooks takes: the window shows that
    hooked run. A cache, or the run of fwd_hooks, is handed over as a run file (proc.run) that the window shows instead
    of computing it, saying "hooked run from Python" in its status bar; an edited text, an ablation or another model
    runs live (the status bar says why).
view, layer, head: what the window shows first (checked here: ValueError names the valid ones).

The run is written as a session file (proc.session, in a new temporary folder: File ▸ Save As keeps it elsewhere)
that the program (attnlab.executable()) opens in a new process of its own session: closing the notebook or
interrupting a cell leaves the window open. Returns the subprocess.Popen of the window: proc.pid, proc.wait(),
proc.terminate(); the program's messages go to proc.log. Needs a display (DISPLAY or WAYLAND_DISPLAY); without one
RuntimeError says to use attnlab.figure.)";

}  // namespace

void registerShow(py::module_& m) {
  wrapRunWithCache(m);
  m.def(
      "executable", [] { return findExecutable(); },
      "The program attnlab that figure and show run: $ATTNLAB_EXECUTABLE, else the build folder's (BUILD/app/attnlab "
      "beside BUILD/python), the installed package's (PREFIX/bin/attnlab beside PREFIX/lib/python3/dist-packages), or "
      "the one on PATH. Raises FileNotFoundError saying where it looked.");
  m.def("figure", &figure, py::arg("model"), py::arg("text") = py::none(), py::arg("path") = py::none(), py::kw_only(),
        py::arg("view") = "heatmap", py::arg("layer") = 0, py::arg("head") = 0, py::arg("preset") = py::none(),
        py::arg("width") = py::none(), py::arg("height") = py::none(), py::arg("dpi") = py::none(),
        py::arg("format") = py::none(), py::arg("font_scale") = py::none(), py::arg("timeout") = py::none(),
        py::arg("fwd_hooks") = py::none(), kFigureDoc);
  m.def("show", &show, py::arg("model"), py::arg("text") = py::none(), py::kw_only(), py::arg("view") = "heatmap",
        py::arg("layer") = 0, py::arg("head") = 0, py::arg("fwd_hooks") = py::none(), kShowDoc);
  m.def("read_session", &readSession, py::arg("path"),
        "A session file (*.attnlab.json, attnlab.show's proc.session) as the program reads it: a dict of every "
        "parameter (sentence, model_dir, selection: layer, head, view, ...), the defaults filled in. Raises ValueError "
        "naming a bad field.");
}

}  // namespace attnlab::py_module
