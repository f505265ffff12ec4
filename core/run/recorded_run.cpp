#include "core/run/recorded_run.h"

#include <filesystem>
#include <mutex>

#include "core/base/errors.h"
#include "core/run/encdec_run.h"
#include "core/run/pipeline.h"
#include "core/session/params_json.h"

namespace attnlab {
namespace {

std::mutex& runMutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<const RecordedRun>& current() {
  static std::shared_ptr<const RecordedRun> run;
  return run;
}

/// A folder as one spelling (absolute, symlinks resolved where it exists); names like "builtin:NAME" as they are.
std::string canonicalDir(const std::string& dir) {
  if (dir.empty() || dir.find(':') != std::string::npos) return dir;
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(dir), ec);
  return ec ? dir : p.string();
}

/// Whether an intervention asks for exactly the plain run (reuse and prefix only lend rows of an equal run).
bool plain(const Intervention& iv) { return iv.empty() && iv.hooks == nullptr; }

}  // namespace

std::string setRecordedRun(const std::string& path) {
  auto run = std::make_shared<RecordedRun>();
  run->path = path;
  try {
    run->file = std::make_shared<const RunFile>(readRunFile(path));
  } catch (const std::exception& e) {  // InputError, bad_alloc of a huge header's sizes
    run->problem = e.what();
  }
  std::lock_guard<std::mutex> lock(runMutex());
  current() = run;
  return run->problem;
}

void clearRecordedRun() {
  std::lock_guard<std::mutex> lock(runMutex());
  current().reset();
}

std::shared_ptr<const RecordedRun> recordedRun() {
  std::lock_guard<std::mutex> lock(runMutex());
  return current();
}

std::string recordedRunMismatch(const RunFileModel& recorded, const Params& p, const Model& m) {
  const ModelInfo i = m.info();
  if (canonicalDir(recorded.modelDir) != canonicalDir(p.modelDir))
    return "it was recorded from the model " + (recorded.modelDir.empty() ? "built-in" : recorded.modelDir) + ", not " +
           (p.modelDir.empty() ? "the built-in one" : p.modelDir);
  if (p.modelDir.empty() && recorded.config != toJson(p.model))
    return "it was recorded from a built-in model of another configuration (" + recorded.config.dump() + ")";
  const ModelInfo& r = recorded.info;
  if (r.name != i.name || r.kind != i.kind || r.layers != i.layers || r.heads != i.heads || r.dModel != i.dModel ||
      r.dHead != i.dHead || recorded.vocabularySize != m.vocabularySize())
    return "it was recorded from " + r.name + " (" + r.kind + ", " + std::to_string(r.layers) + " layers × " +
           std::to_string(r.heads) + " heads, d_model " + std::to_string(r.dModel) + "), not this model " + i.name +
           " (" + i.kind + ", " + std::to_string(i.layers) + " × " + std::to_string(i.heads) + ", d_model " +
           std::to_string(i.dModel) + ")";
  return {};
}

RecordedRunModel::RecordedRunModel(std::shared_ptr<const Model> inner, std::shared_ptr<const RunFile> run,
                                   std::string path)
    : inner_(std::move(inner)), run_(std::move(run)), path_(std::move(path)) {}

bool RecordedRunModel::matches(const TokenizedText& text) const {
  const Trace& t = run_->trace;
  if (text.tokens.size() != t.tokens.size()) return false;
  if (!t.tokenIds.empty() || !text.ids.empty()) return text.ids == t.tokenIds;
  for (std::size_t i = 0; i < text.tokens.size(); ++i)  // a model without a vocabulary (the built-in one): its words
    if (text.tokens[i].text != t.tokens[i]) return false;
  return true;
}

bool RecordedRunModel::isRecorded(const Trace& t) const {
  const Trace& r = run_->trace;
  return t.tokenIds == r.tokenIds && t.tokens == r.tokens && t.layerCount() == r.layerCount() &&
         (r.layers.empty() || t.layers.back().residualOut == r.layers.back().residualOut);
}

Trace RecordedRunModel::forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const {
  if (plain(iv) && matches(text)) {
    Trace t = run_->trace;
    // A long input's trace keeps no attention or MLP outputs: the model recomputes them (layer_outputs.h).
    for (const LayerTrace& L : t.layers)
      if (L.attentionOut.size() == 0) t.outputsFrom = inner_;
    return t;
  }
  // Never lend the recorded run's layers or rows to a live run: they hold what the hooks changed.
  Intervention live = iv;
  if (live.reuse && isRecorded(*live.reuse)) live.reuse = nullptr, live.reuseLayers = 0;
  if (live.prefix && isRecorded(*live.prefix)) live.prefix = nullptr;
  return inner_->forward(text, control, live);
}

std::vector<Vec> RecordedRunModel::lastRowsWith(const TokenizedText& text, const Trace& base,
                                                const std::vector<Intervention>& ivs) const {
  // Resumed runs continue from base's layers: from the recorded run they would mix the hooks in. Full live runs.
  if (isRecorded(base)) return Model::lastRowsWith(text, base, ivs);
  return inner_->lastRowsWith(text, base, ivs);
}

std::vector<Mat> RecordedRunModel::rowsWith(const TokenizedText& text, const Trace& base,
                                            const std::vector<Intervention>& ivs, const std::vector<int>& rows) const {
  if (isRecorded(base)) return Model::rowsWith(text, base, ivs, rows);
  return inner_->rowsWith(text, base, ivs, rows);
}

std::shared_ptr<const Model> withRecordedRun(std::shared_ptr<const Model> model, const Params& p) {
  const std::shared_ptr<const RecordedRun> run = recordedRun();
  if (!run || !run->file || !model || std::dynamic_pointer_cast<const TwoTextModel>(model)) return model;
  if (!recordedRunMismatch(run->file->model, p, *model).empty()) return model;
  return std::make_shared<RecordedRunModel>(std::move(model), run->file, run->path);
}

std::string recordedRunNote(const PipelineResult& r, const Params& p) {
  const std::shared_ptr<const RecordedRun> run = recordedRun();
  if (!run) return {};
  const std::string file = std::filesystem::path(run->path).filename().string();
  if (!run->file) return "live run: the run file does not read (" + run->problem + ")";
  const auto* recorded = dynamic_cast<const RecordedRunModel*>(r.model.get());
  if (!recorded) {
    const std::string why = recordedRunMismatch(run->file->model, p, *r.model);
    return "live run: the hooked run from Python (" + file + ") is not of this model" + (why.empty() ? "" : ": " + why);
  }
  if (recorded->isRecorded(r.trace)) return "hooked run from Python (" + file + ")";
  if (r.text.ids != recorded->recordedIds() || r.trace.tokens != run->file->trace.tokens)
    return "live run: the text differs from the hooked run from Python (" + file + ")";
  return "live run: an ablation changes the hooked run from Python (" + file + ")";
}

}  // namespace attnlab
