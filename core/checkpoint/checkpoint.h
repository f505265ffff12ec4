#pragma once
// Opening a Hugging Face checkpoint folder from the user's disk:
//   config.json         model_type gpt2 | bert | distilbert, sizes (hf_config.h)
//   model.safetensors   the weights, memory-mapped (safetensors.h)
//   tokenizer files     tokenizer.json, or vocab.json + merges.txt (GPT-2) / vocab.txt (BERT)
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
/// The folder's own name ("gpt2" for "/models/gpt2/"): a model's display name.
std::string checkpointFolderName(std::string dir);

}  // namespace attnlab
