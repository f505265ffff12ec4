#include "core/model/intervention.h"

#include <algorithm>
#include <sstream>
#include <string>

#include "core/base/errors.h"

namespace attnlab {
namespace {

bool has(const std::vector<HeadRef>& list, int layer, int head) {
  return std::find(list.begin(), list.end(), HeadRef{layer, head}) != list.end();
}

void checkHeads(const std::vector<HeadRef>& list, int layers, int heads, const char* what) {
  for (const HeadRef& r : list)
    if (r.layer < 0 || r.layer >= layers || r.head < 0 || r.head >= heads)
      throw InputError(std::string(what) + " head " + std::to_string(r.layer) + "." + std::to_string(r.head) +
                       " does not exist: the model has layers 0–" + std::to_string(layers - 1) + " and heads 0–" +
                       std::to_string(heads - 1));
}

}  // namespace

const char* ablationModeName(AblationMode mode) {
  return mode == AblationMode::Mean ? "mean" : mode == AblationMode::Resample ? "resample" : "zero";
}

AblationMode parseAblationMode(const std::string& name, const std::string& what) {
  for (AblationMode m : {AblationMode::Zero, AblationMode::Mean, AblationMode::Resample})
    if (name == ablationModeName(m)) return m;
  throw InputError(what + " must be zero, mean or resample, got '" + name + "'");
}

std::vector<HeadRef> parseHeadList(const std::string& list, const std::string& what) {
  std::vector<HeadRef> heads;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ',')) {
    HeadRef h;
    char dot = 0, extra = 0;
    std::istringstream in(item);
    if (!(in >> h.layer >> dot >> h.head) || dot != '.' || in >> extra)
      throw InputError(what + " expects heads as LAYER.HEAD,LAYER.HEAD (e.g. 0.1,3.2), got '" + item + "'");
    heads.push_back(h);
  }
  if (heads.empty()) throw InputError(what + " names no head");
  return heads;
}

std::vector<std::string> formatHeadList(const std::vector<HeadRef>& heads) {
  std::vector<std::string> out;
  for (const HeadRef& h : heads) out.push_back(std::to_string(h.layer) + "." + std::to_string(h.head));
  return out;
}

void checkIntervention(const Intervention& iv, int layers, int heads, int tokens) {
  checkHeads(iv.ablate, layers, heads, "ablated");
  checkHeads(iv.patchHeads, layers, heads, "patched");
  if (!iv.ablate.empty() && iv.mode == AblationMode::Resample) {
    if (!iv.resample)
      throw InputError("resample ablation needs the run of another text to take the heads' outputs from");
    if (iv.resample->tokenCount() < tokens)
      throw InputError("resample ablation: the other text has " + std::to_string(iv.resample->tokenCount()) +
                       " tokens, fewer than this text's " + std::to_string(tokens) +
                       ": its heads' outputs cannot stand in for every position");
    if (iv.resample->layerCount() != layers || iv.resample->headCount() != heads)
      throw InputError("resample ablation: the other text's run is of another model");
  }
  if (iv.hooks && (iv.reuse || iv.prefix))
    throw InputError("a run with hooks computes every layer: it cannot reuse layers or rows of another run");
  if (iv.patchPosition >= tokens)
    throw InputError("head patch at position " + std::to_string(iv.patchPosition) + " is outside the text (" +
                     std::to_string(tokens) + " tokens)");
  const bool patches = !iv.patchHeads.empty() || iv.residualLayer >= 0;
  if (!patches) return;
  if (!iv.source) throw InputError("patching needs the run to patch from");
  if (iv.source->tokenCount() != tokens)
    throw InputError("the clean and corrupted texts must have the same number of tokens (" +
                     std::to_string(iv.source->tokenCount()) + " and " + std::to_string(tokens) + ")");
  if (iv.residualLayer > layers || iv.residualPosition < 0 || iv.residualPosition >= tokens)
    if (iv.residualLayer >= 0)
      throw InputError("residual patch at layer " + std::to_string(iv.residualLayer) + ", position " +
                       std::to_string(iv.residualPosition) + " is outside the model (" + std::to_string(layers) +
                       " layers) or the text (" + std::to_string(tokens) + " tokens)");
}

namespace {

/// A resample run whose heads are of another width (a model of the same layers × heads, another d_head) would copy
/// blocks of another size past the end of `concat`'s columns.
void checkResampleWidth(const Intervention& iv, int layer, const Mat& concat) {
  if (iv.mode == AblationMode::Resample && !iv.ablate.empty() && iv.resample &&
      iv.resample->layers[static_cast<std::size_t>(layer)].concat.cols() != concat.cols())
    throw InputError("resample ablation: the other text's run is of another model (heads of another width)");
}

}  // namespace

std::vector<int> interveneOnConcat(const Intervention& iv, int layer, int heads, int dHead, Mat& concat) {
  std::vector<int> changed;
  if (iv.empty()) return changed;
  checkResampleWidth(iv, layer, concat);
  for (int h = 0; h < heads; ++h) {
    auto cols = concat.middleCols(static_cast<Eigen::Index>(h) * dHead, dHead);  // [n, d_head]
    const bool patched = has(iv.patchHeads, layer, h);
    if (patched && iv.patchPosition < 0) {
      cols = iv.source->layers[layer].headOutput(h);
    } else if (has(iv.ablate, layer, h)) {
      if (iv.mode == AblationMode::Zero)
        cols.setZero();
      else if (iv.mode == AblationMode::Mean)
        cols.rowwise() = cols.colwise().mean().eval();
      else
        cols = iv.resample->layers[layer].headOutput(h).topRows(concat.rows());
      if (patched) cols.row(iv.patchPosition) = iv.source->layers[layer].headOutput(h).row(iv.patchPosition);
    } else if (patched) {
      cols.row(iv.patchPosition) = iv.source->layers[layer].headOutput(h).row(iv.patchPosition);
    } else {
      continue;
    }
    changed.push_back(h);
  }
  return changed;
}

void interveneOnConcatRows(const Intervention& iv, int layer, int heads, int dHead, int first, Mat& concat) {
  const Eigen::Index m = concat.rows();
  checkResampleWidth(iv, layer, concat);
  for (int h = 0; h < heads; ++h) {
    auto cols = concat.middleCols(static_cast<Eigen::Index>(h) * dHead, dHead);  // rows [first, first + m)
    if (has(iv.ablate, layer, h)) {
      if (iv.mode == AblationMode::Zero)
        cols.setZero();
      else if (iv.mode == AblationMode::Resample)
        cols = iv.resample->layers[layer].headOutput(h).middleRows(first, m);
    }
    if (!has(iv.patchHeads, layer, h)) continue;
    const auto from = iv.source->layers[layer].headOutput(h);
    if (iv.patchPosition < 0)
      cols = from.middleRows(first, m);
    else if (iv.patchPosition >= first)
      cols.row(iv.patchPosition - first) = from.row(iv.patchPosition);
  }
}

void interveneOnResidual(const Intervention& iv, int layer, Mat& stream) {
  if (iv.residualLayer != layer || !iv.source) return;
  const Trace& s = *iv.source;
  stream.row(iv.residualPosition) = s.layerInput(layer).row(iv.residualPosition);
}

void interveneOnTracedResidual(const Intervention& iv, int layer, Trace& trace, Mat& stream) {
  if (iv.residualLayer != layer || !iv.source) return;
  interveneOnResidual(iv, layer, stream);
  Mat& record = layer == 0 ? trace.embeddings : trace.layers[static_cast<std::size_t>(layer - 1)].residualOut;
  record.row(iv.residualPosition) = stream.row(iv.residualPosition);
}

int firstDifferingLayer(const Intervention& a, const Intervention& b, int layers) {
  if (!a.patchHeads.empty() || !b.patchHeads.empty() || a.residualLayer >= 0 || b.residualLayer >= 0) return 0;
  int first = layers;
  auto lowerTo = [&first](const std::vector<HeadRef>& heads, const std::vector<HeadRef>& other, bool all) {
    for (const HeadRef& h : heads)
      if (all || std::find(other.begin(), other.end(), h) == other.end()) first = std::min(first, h.layer);
  };
  // Every ablated head's output changes with the mode, and with the text resampled from.
  const bool modes = a.mode != b.mode || (a.mode == AblationMode::Resample && a.resample != b.resample);
  lowerTo(a.ablate, b.ablate, modes);
  lowerTo(b.ablate, a.ablate, modes);
  return first;
}

int copyReusedLayers(const Intervention& iv, const std::vector<int>& ids, Trace& trace, Mat& stream) {
  if (!iv.reuse || iv.reuseLayers <= 0 || iv.reuse->tokenIds != ids || iv.reuse->layerCount() < iv.reuseLayers)
    return 0;
  trace.layers.assign(iv.reuse->layers.begin(), iv.reuse->layers.begin() + iv.reuseLayers);
  if (!trace.outputsFrom) trace.outputsFrom = iv.reuse->outputsFrom;  // the copied layers may keep no outputs
  stream = trace.layers.back().residualOut;
  return iv.reuseLayers;
}

}  // namespace attnlab
