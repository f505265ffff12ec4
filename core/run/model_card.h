#pragma once
// The card of an opened model (issue 31: the parameter panel shows it instead of the built-in model's settings):
// family, sizes, kv heads, attention windows, dtype, positions, the files it was read from and the memory it takes.
// Everything is read from the loaded model itself (its config, its safetensors headers, its folder), never from the
// parameters that named it. Works for every model makeModel opens from a folder or a name: GPT-2, BERT, DistilBERT,
// the decoder families, the encoder–decoders (Marian, BART, T5, builtin:reverse), the trained tiny models (a Training
// view folder, the shipped builtin:induction).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/model/model.h"

namespace attnlab {

struct ModelCardFile {
  std::string name;         ///< the file's name inside the folder ("model-00001-of-00002.safetensors")
  std::uint64_t bytes = 0;  ///< its size on disk
};

struct ModelCard {
  std::string name;          ///< the checkpoint's folder name, or the model's name when it has no folder
  std::string family;        ///< config.json's family: "mistral", "gemma3", "gpt2", "bert", "tiny"
  std::string architecture;  ///< "decoder", "GPT-2", "BERT encoder", "attention-only, softmax", …
  bool causal = true;        ///< false: every token sees every token (BERT)
  int layers = 0, heads = 0, kvHeads = 0, dModel = 0, dHead = 0, dInner = 0, vocab = 0;  ///< dInner 0: no MLP
  long long parameters = 0;  ///< elements of every stored weight tensor (a tied embedding counts once)
  std::vector<int> windows;  ///< per layer: the sliding window W (a query sees its last W keys), 0 = all before it
  int positions = 0;         ///< the longest input (ModelInfo::maxTokens); 0: no limit of the model's own (T5)
  std::string positionKind;  ///< "learned table", "RoPE θ 10000, llama3 ×8", …
  std::map<std::string, std::uint64_t> dtypeBytes;  ///< stored dtype ("F32", "BF16") → bytes of its tensors
  std::uint64_t weightBytes = 0;                    ///< every weight tensor as stored
  std::string source;                               ///< the folder, or "compiled into the program"
  std::vector<ModelCardFile> files;  ///< the files read, in the order they are read; none when compiled in
  /// An encoder–decoder (Marian, BART, T5; issue 33): layers, heads, dHead, dInner and vocab above are the decoder's
  /// (causal), these the encoder's (bidirectional); sourceVocab = vocab when both sides share one vocabulary size.
  bool encoderDecoder = false;
  int encoderLayers = 0, encoderHeads = 0, encoderDHead = 0, encoderDInner = 0, sourceVocab = 0;
  bool sharedVocabulary = true;  ///< one embedding table for both sides (Marian's may be two)
  /// The folder's generation rules (describeGenerationRules, with the file they came from); empty when none.
  std::string generation;
};

/// The card of `model`, opened from `modelDir` (Params::modelDir: a folder or a "builtin:" name). A model of a
/// class the card does not know (the built-in random transformer) gets its ModelInfo's sizes only.
ModelCard modelCard(const Model& model, const std::string& modelDir);

/// The windows for a reader: "none" when every layer sees all earlier tokens, "4 on every layer",
/// "4 on layers 0, 2; none on 1" otherwise (runs of layers as "0–3").
std::string describeWindows(const std::vector<int>& windows);

/// The dtypes for a reader, largest share first: "F32", "BF16 98 %, F32 2 %".
std::string describeDtypes(const std::map<std::string, std::uint64_t>& dtypeBytes);

}  // namespace attnlab
