#pragma once
// A tiny model on disk, in the checkpoint layout every model folder of the program has:
//   config.json        {"model_type": "attnlab-tiny", "vocab_size", "n_positions", "n_layer", …}
//   model.safetensors  F32 tensors named as TinyParams::forEach (tok_emb [V, d], layers.0.attn.wq [d, d], …),
//                      vectors as 1-D tensors
// `attnlab dump --model DIR` and the GUI's Open Model open it through makeModel (model_factory.h).
#include <cstddef>
#include <memory>
#include <string>

#include "core/train/tiny_model.h"

namespace attnlab {

/// Creates the folder (and its parents) when missing; throws InputError naming it when that fails or a
/// file is in the way. Called before training so a bad --save path is reported before the work, not after.
void prepareModelFolder(const std::string& dir);
/// Creates the folder when missing. Throws InputError naming the path on failure.
void saveTinyModel(const std::string& dir, const TinyConfig& config, const TinyParams<float>& params);
/// Throws InputError naming the file and the problem (missing or misshapen tensor, non-finite weight).
/// `name` (title bar, figure captions) defaults to the folder's name.
std::shared_ptr<const TinyModel> loadTinyModel(const std::string& dir, const std::string& name = {});
/// The same from bytes in memory: config.json's text and the safetensors file's bytes (the shipped
/// models compiled into the program). `name` starts every error message and names the model.
std::shared_ptr<const TinyModel> loadTinyModelFromMemory(const std::string& configJson, const unsigned char* weights,
                                                         std::size_t size, const std::string& name);
/// True when dir/config.json exists and names model_type "attnlab-tiny" (false for anything unreadable:
/// the checkpoint loader then reports the problem).
bool isTinyCheckpoint(const std::string& dir);

}  // namespace attnlab
