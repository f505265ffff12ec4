#pragma once
// Opening a Hugging Face checkpoint folder from the user's disk:
//   config.json         model_type gpt2 | bert | distilbert | llama | mistral | qwen2 | qwen3 | gemma | gemma2 |
//                       gemma3, sizes (hf_config.h, decoder_config.h)
//   model.safetensors   the weights, memory-mapped (safetensors.h), or model.safetensors.index.json and
//                       the shards it names (safetensors_set.h)
//   tokenizer files     tokenizer.json, or vocab.json + merges.txt (GPT-2) / vocab.txt (BERT); the decoder
//                       families read tokenizer.json (+ tokenizer_config.json) through the general engine
// Nothing is cached here: the GUI keeps the opened model.
#include <memory>
#include <string>

#include "core/base/run_control.h"
#include "core/checkpoint/hf_model.h"

namespace attnlab {

/// Throws InputError naming the file and the problem (missing file, malformed JSON, unknown
/// model_type, damaged safetensors, missing tensors, shapes that contradict config.json), and
/// Cancelled when the control's flag is raised.
std::shared_ptr<const HfModel> loadCheckpoint(const std::string& dir, const RunControl& control = {});
/// Only the tokenizer of a checkpoint folder (no weights read): the family config.json names, or the general
/// tokenizer.json engine for a folder with tokenizer.json and no config.json. Throws InputError.
std::unique_ptr<TextTokenizer> loadFolderTokenizer(const std::string& dir);
/// The folder's weights: model.safetensors, or the shards model.safetensors.index.json names.
std::shared_ptr<SafetensorsSet> openCheckpointWeights(const std::string& dir);
/// The folder's own name ("gpt2" for "/models/gpt2/"): a model's display name.
std::string checkpointFolderName(std::string dir);

}  // namespace attnlab
