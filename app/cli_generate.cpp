// `attnlab generate`: greedy or sampled next tokens after the sentence, each step on the model's key/value
// cache (core/model/generate.h). One JSON object per line and per step, written as it is made:
// {"step": k, "id": i, "token": "Ġcat", "prob": p}, p = softmax(logits / T)[i] over the whole vocabulary.
#include <iostream>
#include <limits>

#include "app/cli_commands.h"
#include "app/cli_encdec.h"
#include "core/base/errors.h"
#include "core/model/generate.h"
#include "core/run/model_factory.h"
#include "core/run/pipeline.h"

namespace attnlab::cli {

const std::vector<Option>& generateOptions() {
  static const std::vector<Option> options{
      {"steps", true, "N: tokens to generate (required, 1..100000)"},
      {"greedy", false, "take the most probable token each step (the default)"},
      {"temperature", true, "T: sample from softmax(logits / T) (T > 0); --seed S (default 0) fixes the draw"},
      {"top-k", true, "K: sample among the K most probable tokens only (default 0: all)"},
      {"top-p", true, "P: sample among the most probable tokens holding mass P (default 1: all)"}};
  return options;
}

int runGenerate(const Args& args) {
  if (hasSource(args)) return runEncDecGenerate(args);
  for (const char* two : {"ablate", "ablate-mode", "ablate-encoder", "ablate-cross"})
    if (args.has(two)) throw InputError(std::string("--") + two + " needs an encoder–decoder's two texts (--source)");
  if (!args.has("steps")) throw InputError("--steps N is required");
  const SamplingOptions o = samplingOptionsFromArgs(args);
  const int steps = args.intValue("steps", 0, 1, 100000);  // "must be between 1 and 100000"
  const Params p = oneTextParamsFromArgs(args);
  const std::shared_ptr<const Model> model = makeModel(p);
  // --keep-last N (and the model's own limit) as every other command applies them: the last N tokens of a long
  // prompt, its BOS kept (core/run/pipeline.h). It was ignored here: a 461,374-token prompt was refused.
  const std::vector<int> prompt =
      keepLastTokens(model->tokenize(p.sentence), p.keepLastTokens, model->info().maxTokens, *model).ids;
  generate(*model, prompt, steps, o, {}, [](const GeneratedToken& t) {
    const nlohmann::json j{{"step", t.step}, {"id", t.id}, {"token", t.piece}, {"prob", t.prob}};
    // Vocabulary strings are valid UTF-8; replace rather than throw if one is not.
    std::cout << jsonText(j) << "\n" << std::flush;
  });
  return 0;
}

}  // namespace attnlab::cli
