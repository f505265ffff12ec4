#include "python/py_cache.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/errors.h"
#include "core/model/layer_outputs.h"

namespace attnlab::py_module {
namespace {

constexpr py::ssize_t kF = sizeof(float);

/// Models whose embeddings add a learned (or fixed) position vector to the token's row of W_E: the trace's
/// `embeddings` is then hook_embed + hook_pos_embed. The decoders rotate q and k instead (no position vector).
bool addsPositionVectors(const ModelInfo& info) { return info.kind == "gpt2" || info.kind == "tiny"; }

bool hasTokenEmbeddings(const LoadedModel& m, const Trace& t) {
  return m.model->tokenEmbeddings().data() != nullptr && !t.tokenIds.empty();
}

bool hasMlp(const Trace& t, int layer) { return t.layers[layer].mlpOut.size() > 0 || recomputesOutputs(t, layer); }

bool hasFinalNorm(const LoadedModel& m) {
  const Unembedding* u = m.model->unembedding();
  return u && !u->hasTransform();
}

/// The rows W_E[ids] [n, d].
Mat tokenEmbeddingRows(const LoadedModel& m, const Trace& t) {
  const UnembeddingView we = m.model->tokenEmbeddings();
  Mat rows(static_cast<Eigen::Index>(t.tokenIds.size()), we.cols());
  for (std::size_t p = 0; p < t.tokenIds.size(); ++p) rows.row(static_cast<Eigen::Index>(p)) = we.row(t.tokenIds[p]);
  return rows;
}

/// ln_final.hook_normalized as TransformerLens has it: the final stream centred (LayerNorm) and divided by its scale
/// σ, before the norm's γ and β (which TransformerLens folds into W_U).  [n, d]
Mat finalNormalized(const Unembedding& u, const Mat& x) {
  const Vec sigma = u.scales(x);
  Mat y = x;
  if (u.norm == Unembedding::Norm::Layer) y.colwise() -= y.rowwise().mean();
  if (u.norm != Unembedding::Norm::None) y.array().colwise() /= sigma.array();
  return y;
}

/// [B, n, d] of per-text [n, d] matrices (copied: the texts' traces are apart).
py::array stackRows(const std::vector<Mat>& mats) {
  const py::ssize_t n = mats[0].rows(), d = mats[0].cols();
  py::array_t<float> a = newFloatArray({static_cast<py::ssize_t>(mats.size()), n, d});
  for (std::size_t b = 0; b < mats.size(); ++b)
    Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        a.mutable_data() + static_cast<py::ssize_t>(b) * n * d, n, d) = mats[b];
  return std::move(a);
}

}  // namespace

std::vector<std::string> hookNames(const LoadedModel& m, const Trace& t) {
  std::vector<std::string> names;
  if (hasTokenEmbeddings(m, t)) {
    names.push_back("hook_embed");
    if (addsPositionVectors(m.info)) names.push_back("hook_pos_embed");
  }
  for (int l = 0; l < t.layerCount(); ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".";
    for (const char* part : {"hook_resid_pre", "attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores",
                             "attn.hook_pattern", "attn.hook_z", "hook_attn_out", "hook_resid_mid"})
      names.push_back(b + part);
    if (hasMlp(t, l)) names.push_back(b + "hook_mlp_out");
    names.push_back(b + "hook_resid_post");
  }
  if (hasFinalNorm(m) && t.layerCount() > 0) names.push_back("ln_final.hook_normalized");
  return names;
}

ActivationCache::ActivationCache(LoadedModel model, std::vector<std::shared_ptr<const Trace>> traces, py::handle filter)
    : model_(std::move(model)), traces_(std::move(traces)) {
  for (const auto& t : traces_) {
    bases_.push_back(ownerCapsule(t));
    maps_.push_back(std::make_shared<HeadMapCache>());
  }
  all_ = hookNames(model_, *traces_.front());
  if (filter.is_none()) {
    names_ = all_;
  } else if (py::isinstance<py::str>(filter) ||
             (py::isinstance<py::sequence>(filter) && !PyCallable_Check(filter.ptr()))) {
    std::vector<std::string> wanted;
    if (py::isinstance<py::str>(filter))
      wanted.push_back(filter.cast<std::string>());
    else
      for (py::handle h : filter) wanted.push_back(py::str(h).cast<std::string>());
    for (const std::string& w : wanted)
      if (std::find(all_.begin(), all_.end(), w) == all_.end()) unknown(w, all_);
    for (const std::string& name : all_)
      if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) names_.push_back(name);
  } else if (PyCallable_Check(filter.ptr())) {
    for (const std::string& name : all_)
      if (py::bool_(filter(name))) names_.push_back(name);
  } else {
    throw InputError("names_filter must be None, a hook name, a list of hook names or a function of a name");
  }
}

bool ActivationCache::contains(const std::string& name) const {
  return std::find(names_.begin(), names_.end(), name) != names_.end();
}

void ActivationCache::unknown(const std::string& name, const std::vector<std::string>& valid) const {
  const py::list near =
      py::module_::import("difflib").attr("get_close_matches")(name, py::cast(valid), 6, 0.6).cast<py::list>();
  std::string message = "no hook '" + name + "'";
  if (std::find(all_.begin(), all_.end(), name) != all_.end()) {
    message += ": names_filter left it out of this cache";
  } else {
    message += " in this model";
    if (!near.empty()) {
      message += "; the nearest: ";
      for (std::size_t i = 0; i < near.size(); ++i) message += (i ? ", " : "") + near[i].cast<std::string>();
    }
    message += " (cache.keys() lists all " + std::to_string(valid.size()) + ")";
  }
  throw py::key_error(message);
}

py::object ActivationCache::get(const std::string& name) {
  if (!contains(name)) unknown(name, names_);
  auto it = made_.find(name);
  if (it != made_.end()) return it->second;
  py::object value = make(name);
  made_.emplace(name, value);
  return value;
}

py::object ActivationCache::make(const std::string& name) {
  const int batch = static_cast<int>(traces_.size());
  const Trace& t0 = *traces_.front();
  const auto n = static_cast<py::ssize_t>(t0.tokenCount());
  // A stream every text's trace keeps: a view for one text, a stack of copies for a batch.
  const auto kept = [&](const auto& of) -> py::object {
    if (batch == 1) return rowsView(of(t0), bases_[0]);
    std::vector<Mat> mats;
    for (const auto& t : traces_) mats.push_back(of(*t));
    return stackRows(mats);
  };
  // A stream made now for each text: moved into the array for one text, stacked for a batch.
  const auto made = [&](const auto& of) -> py::object {
    std::vector<Mat> mats;
    {
      py::gil_scoped_release release;
      for (const auto& t : traces_) mats.push_back(of(*t));
    }
    if (batch == 1) return ownedRowsView(std::move(mats[0]));
    return stackRows(mats);
  };

  if (name == "hook_embed") return made([&](const Trace& t) { return tokenEmbeddingRows(model_, t); });
  if (name == "hook_pos_embed")
    return made([&](const Trace& t) { return Mat(t.embeddings - tokenEmbeddingRows(model_, t)); });
  if (name == "ln_final.hook_normalized") {
    const Unembedding& u = *model_.model->unembedding();
    return made([&](const Trace& t) { return finalNormalized(u, t.layers.back().residualOut); });
  }

  // blocks.{l}.{part}
  const std::string prefix = "blocks.";
  const std::size_t dot = name.find('.', prefix.size());
  const int l = std::stoi(name.substr(prefix.size(), dot - prefix.size()));
  const std::string part = name.substr(dot + 1);
  const LayerTrace& layer0 = t0.layers[l];

  if (part == "hook_resid_pre") return kept([&](const Trace& t) -> const Mat& { return t.layerInput(l); });
  if (part == "hook_resid_post") return kept([&](const Trace& t) -> const Mat& { return t.layers[l].residualOut; });
  if (part == "hook_attn_out") {
    if (!recomputesOutputs(t0, l) && layer0.attentionOut.size() > 0)
      return kept([&](const Trace& t) -> const Mat& { return t.layers[l].attentionOut; });
    return made([&](const Trace& t) { return attentionOutOf(t, l); });
  }
  if (part == "hook_mlp_out") {
    if (!recomputesOutputs(t0, l) && layer0.mlpOut.size() > 0)
      return kept([&](const Trace& t) -> const Mat& { return t.layers[l].mlpOut; });
    return made([&](const Trace& t) { return mlpOutOf(t, l); });
  }
  if (part == "hook_resid_mid")
    return made([&](const Trace& t) { return Mat(t.layerInput(l) + attentionOutOf(t, l)); });

  const py::ssize_t H = t0.headCount(), dh = layer0.headWidth();
  if (part == "attn.hook_z") {
    // concat [n, H·d_head] column-major: (p, h, j) at p + (h·d_head + j)·n.
    if (batch == 1)
      return floatView(layer0.concat.data(), {1, n, H, dh}, {n * H * dh * kF, kF, n * dh * kF, n * kF}, bases_[0]);
    py::array_t<float> a = newFloatArray({batch, n, H, dh});
    for (int b = 0; b < batch; ++b)
      Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          a.mutable_data() + static_cast<py::ssize_t>(b) * n * H * dh, n, H * dh) = traces_[b]->layers[l].concat;
    return std::move(a);
  }
  if (part == "attn.hook_q" || part == "attn.hook_k" || part == "attn.hook_v") {
    // [B, n, heads, d_head]: the query heads for q; the key/value heads (grouped-query attention) for k and v.
    const char which = part.back();
    const py::ssize_t heads = which == 'q' ? H : t0.kvHeadCount();
    const int group = static_cast<int>(H / t0.kvHeadCount());
    py::array_t<float> a = newFloatArray({batch, n, heads, dh});
    for (int b = 0; b < batch; ++b) {
      Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> out(
          a.mutable_data() + static_cast<py::ssize_t>(b) * n * heads * dh, n, heads * dh);
      const LayerTrace& layer = traces_[b]->layers[l];
      for (py::ssize_t h = 0; h < heads; ++h) {
        const HeadTrace& head = layer.heads[which == 'q' ? h : h * group];
        out.middleCols(h * dh, dh) = which == 'q' ? head.q : which == 'k' ? head.k() : head.v();
      }
    }
    return std::move(a);
  }
  if (part == "attn.hook_pattern" || part == "attn.hook_attn_scores") {
    // [B, heads, query, key]: every head's map, stored or recomputed from its Q and K (head_maps.h).
    const bool scores = part == "attn.hook_attn_scores";
    const double bytes = static_cast<double>(batch) * H * n * n * kF;
    if (bytes > activationBudgetBytes())
      throw InputError(name + " of " + std::to_string(n) + " tokens would take " +
                       std::to_string(static_cast<long long>(bytes / (1 << 20))) +
                       " MB (more than half this machine's memory); read a shorter text");
    py::array_t<float> a = newFloatArray({batch, H, n, n});
    float* out = a.mutable_data();
    {
      py::gil_scoped_release release;
      for (int b = 0; b < batch; ++b)
        for (py::ssize_t h = 0; h < H; ++h) {
          const Trace& t = *traces_[b];
          const std::shared_ptr<const Mat> map =
              scores ? maps_[b]->scores(t, l, static_cast<int>(h)) : maps_[b]->attention(t, l, static_cast<int>(h));
          Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(
              out + (static_cast<py::ssize_t>(b) * H + h) * n * n, n, n);
          m = *map;
          if (!scores) continue;
          // TransformerLens masks the scores: −inf where the query does not see the key (causal, sliding window).
          const HeadOptions& o = t.layers[l].heads[h].options;
          for (long i = 0; i < n; ++i) {
            long first = 0, end = n;
            visibleKeys(o, i, n, first, end);
            for (long j = 0; j < first; ++j) m(i, j) = -std::numeric_limits<float>::infinity();
            for (long j = end; j < n; ++j) m(i, j) = -std::numeric_limits<float>::infinity();
          }
        }
    }
    return std::move(a);
  }
  unknown(name, names_);
}

}  // namespace attnlab::py_module
