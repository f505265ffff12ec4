#pragma once
// config.json of an encoder–decoder (issue 33): Marian (MarianMTModel) and BART (BartForConditionalGeneration),
// read with transformers' field names. Both are post-LN stacks of the same shape; what differs is read into flags:
//   marian  sinusoidal positions computed (sin half, then cos half), embeddings × √d, swish
//   bart    learned positions at index position + 2, layernorm_embedding after the sum, exact GELU
// Other encoder–decoders (t5, mbart, pegasus, …) and the pre-LN options are refused by name.
#include <string>

namespace attnlab {

enum class EncDecFamily { Marian, Bart };
enum class EncDecActivation { Swish, GeluErf, Relu, GeluTanh };

struct EncDecConfig {
  EncDecFamily family = EncDecFamily::Marian;
  std::string modelType;
  int dModel = 0;
  int encoderLayers = 0, decoderLayers = 0;
  int encoderHeads = 0, decoderHeads = 0;
  int encoderFfn = 0, decoderFfn = 0;
  int vocabSize = 0;         ///< the encoder's (source) vocabulary
  int decoderVocabSize = 0;  ///< the decoder's (target) vocabulary: Marian's decoder_vocab_size, else vocabSize
  int maxPositions = 0;
  int decoderStartId = 0, eosId = -1, padId = -1;
  bool scaleEmbedding = false;       ///< embeddings × √d
  bool sharedEmbeddings = true;      ///< one table model.shared (Marian's share_encoder_decoder_embeddings)
  bool tiedLmHead = true;            ///< lm_head = the decoder's embeddings (tie_word_embeddings)
  bool sinusoidalPositions = false;  ///< Marian's; else learned with offset 2 (BART)
  bool embeddingNorm = false;        ///< BART's layernorm_embedding
  EncDecActivation activation = EncDecActivation::Swish;
  double layerNormEps = 1e-5;  ///< nn.LayerNorm's default: neither config carries it

  int encoderHeadWidth() const { return dModel / encoderHeads; }
  int decoderHeadWidth() const { return dModel / decoderHeads; }
};

const char* toString(EncDecFamily f);
/// Whether config.json's model_type names an encoder–decoder (supported or not): the checkpoint opener's test.
bool isEncoderDecoderType(const std::string& modelType);
/// Reads `dir`/config.json; throws InputError naming the file and the field for anything missing, out of range or
/// not supported (an encoder–decoder family this program does not run is named in the message).
EncDecConfig readEncDecConfig(const std::string& configPath);

}  // namespace attnlab
