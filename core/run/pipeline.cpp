#include "core/run/pipeline.h"

#include "core/base/errors.h"
#include "core/run/model_factory.h"

namespace attnlab {

PipelineResult runPipeline(const Params& p, std::shared_ptr<const Model> model, const RunControl& control,
                           std::shared_ptr<const PipelineResult> previous) {
  PipelineResult r;
  r.model = model ? std::move(model) : makeModel(p);
  r.info = r.model->info();
  r.text = r.model->tokenize(p.sentence);
  r.intervention = ablationOf(p.prediction);
  Intervention iv = r.intervention;
  if (previous && previous->model == r.model && previous->text.ids == r.text.ids) {
    iv.reuse = &previous->trace;
    iv.reuseLayers = firstDifferingLayer(previous->intervention, iv, r.info.layers);
  } else if (previous && previous->model == r.model && previous->intervention.ablate == iv.ablate &&
             previous->intervention.mode == iv.mode) {
    iv.prefix = &previous->trace;  // an edited text: a long input's unchanged first rows come from the last run
  }
  r.trace = r.model->forward(r.text, control, iv);
  return r;
}

Intervention ablationOf(const PredictionSettings& s) {
  Intervention iv;
  iv.ablate = s.ablate;
  iv.mode = s.ablationMode;
  return iv;
}

void checkSelection(const Params& p, const Trace& t) {
  if (p.selection.layer < 0 || p.selection.layer >= t.layerCount())
    throw InputError("layer " + std::to_string(p.selection.layer) + " does not exist: the model has " +
                     std::to_string(t.layerCount()) + " layers (0-based)");
  if (p.selection.head < 0 || p.selection.head >= t.headCount())
    throw InputError("head " + std::to_string(p.selection.head) + " does not exist: layer " +
                     std::to_string(p.selection.layer) + " has " + std::to_string(t.headCount()) + " heads (0-based)");
}

}  // namespace attnlab
