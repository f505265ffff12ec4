#include "core/run/model_factory.h"

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/builtin_model.h"
#include "core/run/builtin_two_text.h"
#include "core/run/encdec_run.h"
#include "core/run/recorded_run.h"
#include "core/session/params_json.h"
#include "core/train/shipped_models.h"
#include "core/train/tiny_checkpoint.h"

namespace attnlab {

namespace {

std::shared_ptr<const Model> makeNamedModel(const Params& p, const RunControl& control) {
  if (!p.modelDir.empty()) {
    // builtin:reverse: its embedded files written to a folder, opened as any encoder–decoder, named by its builtin
    // name.
    if (isShippedEncDecName(p.modelDir)) return openEncDecModel(shippedEncDecFolder(p.modelDir), control, p.modelDir);
    if (isShippedModelName(p.modelDir)) return loadShippedModel(p.modelDir);
    if (isTinyCheckpoint(p.modelDir)) return loadTinyModel(p.modelDir);           // saved by the Training view
    if (isEncDecFolder(p.modelDir)) return openEncDecModel(p.modelDir, control);  // a source and a target (issue 33)
    return loadCheckpoint(p.modelDir, control);
  }
  if (p.model.mode == Mode::EncDec) return std::make_shared<BuiltinTwoTextModel>(p.model, p.lowercase, control);
  return std::make_shared<BuiltinModel>(p.model, p.lowercase, control);
}

}  // namespace

std::shared_ptr<const Model> makeModel(const Params& p, const RunControl& control) {
  return withRecordedRun(makeNamedModel(p, control), p);  // a run file given (`--run`): its run shown, not computed
}

nlohmann::json describeModel(const Params& p, const Model& m) {
  const ModelInfo info = m.info();
  nlohmann::json j = info.kind == "builtin" ? toJson(p.model) : nlohmann::json::object();
  j["kind"] = info.kind;
  j["name"] = info.name;
  j["layers"] = info.layers;
  j["heads"] = info.heads;
  j["d_model"] = info.dModel;
  j["d_head"] = info.dHead;
  j["head_dim"] = info.dHead;
  j["kv_heads"] = info.kvHeads > 0 ? info.kvHeads : info.heads;
  if (!p.modelDir.empty()) j["model_dir"] = p.modelDir;
  return j;
}

}  // namespace attnlab
