#include "python/py_analyses.h"

#include <pybind11/stl.h>

#include "core/atlas/atlas_builder.h"
#include "core/base/errors.h"
#include "core/collapse/collapse_settings.h"
#include "core/predict/attribution.h"
#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "core/run/collapse_experiment.h"
#include "core/run/path_analysis.h"
#include "core/spectra/head_spectrum.h"
#include "core/spectra/spectrum_json.h"

namespace attnlab::py_module {
namespace {

/// One text (a str or one text's ids): an analysis reads a single text.
TokenizedText singleText(const LoadedModel& m, py::handle input, const char* what) {
  std::vector<TokenizedText> texts = inputsOf(m, input);
  if (texts.size() != 1)
    throw InputError(std::string(what) + " reads one text, got a batch of " + std::to_string(texts.size()));
  return std::move(texts[0]);
}

/// A token as the command line takes it: an id (int) or a vocabulary piece (str).
int tokenOf(const LoadedModel& m, py::handle token) {
  if (py::isinstance<py::str>(token)) return resolveToken(*m.model, token.cast<std::string>());
  return resolveToken(*m.model, std::to_string(token.cast<long long>()));
}

py::dict tokenDict(const LoadedModel& m, int id) {
  py::dict d;
  d["id"] = id;
  d["token"] = m.model->vocabularyPiece(id);
  return d;
}

/// "L.H" strings, (layer, head) pairs or one "L.H,L.H" string → heads.
std::vector<HeadRef> headsOf(py::handle list) {
  if (py::isinstance<py::str>(list)) return parseHeadList(list.cast<std::string>(), "ablate");
  std::vector<HeadRef> heads;
  for (py::handle item : list) {
    if (py::isinstance<py::str>(item)) {
      for (const HeadRef& h : parseHeadList(item.cast<std::string>(), "ablate")) heads.push_back(h);
    } else {
      const auto pair = item.cast<std::pair<int, int>>();
      heads.push_back({pair.first, pair.second});
    }
  }
  return heads;
}

/// The ablations of `ablate` in `mode` (parseAblationMode's words, as --ablate-mode); resample runs `resampleText`
/// into `other`, whose heads' outputs stand in (as the command line's --resample-text).
Intervention ablationOf(const LoadedModel& m, py::handle ablate, const std::string& mode, py::handle resampleText,
                        Trace& other) {
  Intervention iv;
  iv.mode = parseAblationMode(mode, "ablate_mode");
  if (ablate.is_none()) {
    if (!resampleText.is_none()) throw InputError("resample_text is for ablate_mode='resample' with heads in ablate");
    return iv;
  }
  iv.ablate = headsOf(ablate);
  if (iv.mode == AblationMode::Resample) {
    if (resampleText.is_none()) throw InputError("ablate_mode='resample' needs resample_text");
    const TokenizedText t = singleText(m, resampleText, "resample_text");
    py::gil_scoped_release release;
    other = m.model->forward(t);
    iv.resample = &other;
  } else if (!resampleText.is_none()) {
    throw InputError("resample_text is only read with ablate_mode='resample'");
  }
  return iv;
}

void putParts(py::dict& d, const Attribution& a) {
  d["logit"] = a.logit;
  d["heads"] = toArray(a.heads);
  d["mlp"] = toArray(a.mlp);
  d["embeddings"] = a.embeddings;
  d["bias"] = a.bias;
}

}  // namespace

py::dict predictTop(const LoadedModel& m, py::handle text, py::handle position, int top, double temperature,
                    py::handle ablate, const std::string& ablateMode, py::handle resampleText) {
  requireVocabulary(m, "predict");
  if (top < 1 || top > 1000) throw InputError("top must be 1–1000, got " + std::to_string(top));
  if (!(temperature >= 1e-3 && temperature <= 1e3))
    throw InputError("temperature must be 0.001–1000, got " + std::to_string(temperature));
  const TokenizedText t = singleText(m, text, "predict");
  Trace other;  // resample: the other text's run
  const Intervention iv = ablationOf(m, ablate, ablateMode, resampleText, other);
  std::vector<TokenScore> scores;
  int pos = 0;
  {
    py::gil_scoped_release release;
    Trace trace = m.model->forward(t);
    {
      py::gil_scoped_acquire acquire;
      pos = position.is_none() ? defaultPosition(*m.model, trace)
                               : resolvePosition(position.cast<int>(), trace.tokenCount());
      if (!iv.ablate.empty()) {
        py::gil_scoped_release again;
        trace = ablationEffect(*m.model, t, trace, iv, pos).ablated;
      }
    }
    scores = predict(*m.model, trace, pos, top, temperature);
  }
  py::array_t<long long> ids(static_cast<py::ssize_t>(scores.size()));
  py::array_t<double> logits(static_cast<py::ssize_t>(scores.size())), probs(static_cast<py::ssize_t>(scores.size()));
  py::list tokens;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    ids.mutable_data()[i] = scores[i].id;
    logits.mutable_data()[i] = scores[i].logit;
    probs.mutable_data()[i] = scores[i].prob;
    tokens.append(py::str(scores[i].token));
  }
  py::dict d;
  d["position"] = pos;
  d["ids"] = ids;
  d["tokens"] = tokens;
  d["logits"] = logits;
  d["probs"] = probs;
  return d;
}

py::dict attribute(const LoadedModel& m, py::handle text, py::handle target, py::handle versus, py::handle position) {
  requireVocabulary(m, "attribute");
  const TokenizedText t = singleText(m, text, "attribute");
  Trace trace;
  {
    py::gil_scoped_release release;
    trace = m.model->forward(t);
  }
  const int pos =
      position.is_none() ? defaultPosition(*m.model, trace) : resolvePosition(position.cast<int>(), trace.tokenCount());
  int targetId = -1;
  if (target.is_none()) {
    const std::vector<TokenScore> best = predict(*m.model, trace, pos, 1);
    if (best.empty()) throw InputError("the model predicts no token at position " + std::to_string(pos));
    targetId = best.front().id;
  } else {
    targetId = tokenOf(m, target);
  }
  const int versusId = versus.is_none() ? -1 : tokenOf(m, versus);
  Attribution a, av;
  {
    py::gil_scoped_release release;
    const HeadContributions parts = headContributions(*m.model, t, trace, pos);
    a = directLogitAttribution(*m.model, trace, parts, targetId);
    if (versusId >= 0) av = directLogitAttribution(*m.model, trace, parts, targetId, versusId);
  }
  py::dict d;
  d["position"] = pos;
  d["target"] = tokenDict(m, targetId);
  putParts(d, a);
  if (versusId >= 0) {
    py::dict v = tokenDict(m, versusId);
    putParts(v, av);
    d["versus"] = v;
  }
  return d;
}

py::dict patch(const LoadedModel& m, py::handle clean, py::handle corrupt, py::handle target, py::handle versus,
               bool residual, py::handle map, py::handle ablate, const std::string& ablateMode,
               py::handle resampleText) {
  requireVocabulary(m, "patch");
  const TokenizedText c = singleText(m, clean, "patch");
  const TokenizedText x = singleText(m, corrupt, "patch");
  const int targetId = tokenOf(m, target), versusId = tokenOf(m, versus);
  PatchingOptions options;
  options.map =
      map.is_none() ? (residual ? PatchMap::All : PatchMap::Heads) : parsePatchMap(map.cast<std::string>(), "map");
  Trace other;  // resample: the other text's run
  options.ablation = ablationOf(m, ablate, ablateMode, resampleText, other);
  PatchingResult r;
  {
    py::gil_scoped_release release;
    r = activationPatching(*m.model, c, x, targetId, versusId, {}, options);
  }
  // The fields of attnlab patch's JSON (app/cli_patch.cpp), matrices as float64 arrays.
  py::dict d;
  d["target"] = tokenDict(m, targetId);
  d["versus"] = tokenDict(m, versusId);
  d["clean_diff"] = r.cleanDiff;
  d["corrupt_diff"] = r.corruptDiff;
  d["map"] = patchMapName(r.map);
  d["first_difference"] = r.firstDifference;
  d["runs"] = r.runs;
  d["skipped"] = r.skipped;
  if (r.heads.size() > 0) d["heads"] = toArray(r.heads);
  if (r.resid.size() > 0) d["resid"] = toArray(r.resid);
  if (r.headPositions.size() > 0) d["head_positions"] = toArray(r.headPositions);
  if (!options.ablation.ablate.empty()) {
    d["ablate"] = formatHeadList(options.ablation.ablate);
    d["ablate_mode"] = ablationModeName(options.ablation.mode);
  }
  if (!r.warning.empty()) d["warning"] = r.warning;
  return d;
}

py::dict headScores(const LoadedModel& m, int probeLength, unsigned long long probeSeed) {
  AtlasOptions options;
  options.probeLength = probeLength;
  options.probeSeed = probeSeed;
  if (probeLength < 2) throw InputError("probe_length must be at least 2, got " + std::to_string(probeLength));
  HeadAtlas atlas;
  {
    py::gil_scoped_release release;
    const std::string shortened = fitProbeToContext(options, m.info.maxTokens);  // as `attnlab heads` does
    atlas = buildProbeAtlas(*m.model, options);
    if (!shortened.empty()) atlas.notes.insert(atlas.notes.begin(), shortened);
  }
  py::dict metrics;
  for (const auto& [name, grid] : atlas.metrics) metrics[py::str(name)] = fromJson(nlohmann::json(grid));
  py::dict d;
  d["layers"] = atlas.layers;
  d["heads"] = atlas.heads;
  d["probe_ids"] = py::array_t<long long>(py::cast(atlas.probe.ids));
  d["probe_tokens"] = atlas.probe.tokens;
  d["probe_length"] = atlas.probe.repeat;
  d["probe_seed"] = atlas.probe.seed;
  d["metrics"] = metrics;
  d["similarity"] = fromJson(nlohmann::json(atlas.similarity));
  d["cluster_order"] = py::array_t<long long>(py::cast(atlas.clusterOrder));
  nlohmann::json map = nlohmann::json::array();
  for (const auto& xy : atlas.map2d) map.push_back({xy[0], xy[1]});
  d["map_2d"] = fromJson(map);
  d["notes"] = atlas.notes;
  return d;
}

py::object spectrum(const LoadedModel& m, py::handle text, int layer, int head) {
  const TokenizedText t = singleText(m, text, "spectrum");
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    const Trace trace = m.model->forward(t);
    if (layer < 0 || layer >= trace.layerCount() || head < 0 || head >= trace.headCount())
      throw InputError("head " + std::to_string(layer) + "." + std::to_string(head) +
                       " does not exist: the model has layers 0–" + std::to_string(trace.layerCount() - 1) +
                       " and heads 0–" + std::to_string(trace.headCount() - 1));
    j = headSpectrumToJson(headSpectrum(trace.layers[layer].heads[head], trace.causal));
  }
  return fromJson(j);
}

py::object collapse(const py::kwargs& settings) {
  Params p;
  CollapseSettings& s = p.collapse;
  bool paths = false;
  for (const auto& [key, value] : settings) {
    const std::string k = key.cast<std::string>();
    if (k == "depth")
      s.depth = value.cast<int>();
    else if (k == "tokens")
      s.tokens = value.cast<int>();
    else if (k == "d_model")
      s.dModel = value.cast<int>();
    else if (k == "heads")
      s.heads = value.cast<int>();
    else if (k == "seeds")
      s.seeds = value.cast<int>();
    else if (k == "seed")
      s.seed = value.cast<unsigned long long>();
    else if (k == "init")
      s.init = parseInitScheme(value.cast<std::string>());
    else if (k == "mlp_gain")
      s.mlpGain = value.cast<double>();
    else if (k == "configs")
      s.configs =
          parseStackConfigList(py::isinstance<py::str>(value) ? value.cast<std::string>()
                                                              : py::str(",").attr("join")(value).cast<std::string>());
    else if (k == "variant")
      s.variant = value.cast<std::string>();
    else if (k == "norm")
      s.norm = parseResidualNorm(value.cast<std::string>());
    else if (k == "input")
      s.input = parseCollapseInput(value.cast<std::string>());
    else if (k == "sentence")
      p.sentence = value.cast<std::string>();
    else if (k == "path_samples")
      s.pathSamples = value.cast<int>();
    else if (k == "paths")
      paths = value.cast<bool>();
    else
      throw InputError("collapse has no setting '" + k +
                       "' (depth, tokens, d_model, heads, seeds, seed, init, mlp_gain, configs, variant, norm, input, "
                       "sentence, path_samples, paths)");
  }
  // The command line's ranges (attnlab collapse), then the settings' own checks.
  const auto range = [](const char* name, long long v, long long lo, long long hi) {
    if (v < lo || v > hi)
      throw InputError(std::string(name) + " must be " + std::to_string(lo) + "–" + std::to_string(hi) + ", got " +
                       std::to_string(v));
  };
  range("depth", s.depth, 1, 128);
  range("tokens", s.tokens, 1, 512);
  range("d_model", s.dModel, 1, 1024);
  range("heads", s.heads, 1, 64);
  range("seeds", s.seeds, 1, 64);
  range("path_samples", s.pathSamples, 0, 256);
  if (!(s.mlpGain >= 0.01 && s.mlpGain <= 100)) throw InputError("mlp_gain must be 0.01–100");
  validate(s);
  nlohmann::json j;
  {
    py::gil_scoped_release release;
    j = collapseToJson(runCollapse(p));
    if (paths) j["paths"] = pathsToJson(runPathAnalysis(p));
  }
  return fromJson(j);
}

}  // namespace attnlab::py_module
