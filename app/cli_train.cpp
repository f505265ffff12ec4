// `attnlab train`: trains a tiny transformer on a toy task from the command line, printing one JSON
// object per line — {"step": k, "loss": x, …} every --every steps, then {"final": {…}} with the scores
// of every head — and with --save DIR writes it as a checkpoint folder that --model DIR opens, with the run's
// history.json (every loss and the final scores and probe attention: `attnlab export --view training --model DIR`).
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli_commands.h"
#include "core/base/errors.h"
#include "core/train/tiny_checkpoint.h"
#include "core/train/train_history.h"
#include "core/train/train_json.h"
#include "core/train/trainer.h"

namespace attnlab::cli {

const std::vector<Option>& trainOptions() {
  static const std::vector<Option> options{
      {"task", true, "induction|reverse|copy|sort|recall: the toy task (default induction)"},
      {"layers", true, "L: transformer layers, 1..4 (default 2)"},
      {"heads", true, "H: heads per layer, 1..8, dividing --d-model (default 4)"},
      {"d-model", true, "D: model width, up to 128 (default 64)"},
      {"steps", true, "N: optimiser steps (default 1000)"},
      {"lr", true, "X: Adam's learning rate (default 0.003)"},
      {"seed", true, "S: seeds the initial weights and the batches (default 1)"},
      {"attention-only", false, "no MLP sub-blocks (the induction-head setting)"},
      {"no-layer-norm", false, "no LayerNorm before the sub-blocks and the unembedding"},
      {"activation", true, "gelu|relu: the MLP's non-linearity (default gelu)"},
      {"variant", true, "softmax|linear_elu|linear_exp: the attention of every head (default softmax)"},
      {"batch", true, "B: sequences per step (default 32)"},
      {"threads", true, "N: worker threads (default 2)"},
      {"vocab", true, "V: vocabulary size (default 128)"},
      {"context", true, "T: sequence length (default 33)"},
      {"weight-decay", true, "W: AdamW's decoupled weight decay (default 0)"},
      {"every", true, "K: print a progress line every K steps (default 10)"},
      {"save", true, "DIR: write the trained model there (config.json + model.safetensors + history.json)"}};
  return options;
}

int runTrain(const Args& args) {
  TrainSettings s;
  s.task = parseTrainTask(args.value("task", "induction"));
  TinyConfig& m = s.model;
  m.layers = args.intValue("layers", m.layers, 1, 4);
  m.heads = args.intValue("heads", m.heads, 1, 8);
  m.dModel = args.intValue("d-model", m.dModel, 1, 128);
  m.vocab = args.intValue("vocab", m.vocab, 4, 4096);
  m.context = args.intValue("context", m.context, 4, 256);
  m.mlp = !args.has("attention-only");
  m.layerNorm = !args.has("no-layer-norm");
  const std::string act = args.value("activation", "gelu");
  if (act != "gelu" && act != "relu") throw InputError("--activation must be gelu or relu (got '" + act + "')");
  m.relu = act == "relu";
  m.attention = parseTinyAttention(args.value("variant", "softmax"));
  m.seed = static_cast<uint64_t>(args.intValue("seed", 1, 0, 2147483647));
  s.adam.lr = args.doubleValue("lr", s.adam.lr, 1e-6, 1.0);
  s.adam.weightDecay = args.doubleValue("weight-decay", 0.0, 0.0, 1.0);
  s.batch = args.intValue("batch", s.batch, 1, 1024);
  s.threads = args.intValue("threads", s.threads, 1, 64);
  const int steps = args.intValue("steps", 1000, 0, 10000000);
  const int every = args.intValue("every", 10, 1, 10000000);
  Trainer trainer(s);  // validates (InputError names the field)
  if (args.has("save")) prepareModelFolder(args.value("save"));
  TrainHistory history;
  history.task = s.task;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 1; k <= steps; ++k) {
    const double loss = trainer.step();
    history.losses.emplace_back(k, loss);
    if (k % every == 0 || k == steps) {
      const nlohmann::json line{{"step", k}, {"loss", loss}, {"grad_norm", trainer.lastGradNorm()}};
      std::cout << line.dump() << "\n" << std::flush;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  history.final = trainer.snapshot();
  nlohmann::json final = snapshotToJson(history.final, s.task, /*withAttention=*/false);
  final["task"] = toString(s.task);
  final["seconds"] = seconds;
  final["ms_per_step"] = steps > 0 ? 1000.0 * seconds / steps : 0.0;
  final["parameters"] = trainer.params().parameterCount();
  if (args.has("save")) {
    saveTinyModel(args.value("save"), s.model, trainer.params());
    saveTrainHistory(args.value("save"), history);
    final["saved"] = args.value("save");
  }
  std::cout << nlohmann::json{{"final", final}}.dump() << "\n";
  return 0;
}

}  // namespace attnlab::cli
