#pragma once
// config.json of an encoder–decoder (issue 33): Marian (MarianMTModel), BART (BartForConditionalGeneration) and T5
// (T5ForConditionalGeneration, v1.0 and v1.1 / flan-t5), read with transformers' field names. What differs:
//   marian  post-LN LayerNorm, sinusoidal positions computed (sin half, then cos half), embeddings × √d, swish,
//           biases everywhere, final_logits_bias
//   bart    as marian but learned positions at index position + 2, layernorm_embedding after the sum, exact GELU
//   t5      pre-LN RMSNorm without mean (and a final norm per stack), no biases, no 1/√d_kv, no position
//           embeddings but a bucketed relative position bias (the first block's, reused by every block of the
//           stack), ReLU or gated GELU (tanh) feed-forward, hidden·d^-0.5 before a tied lm_head
// Other encoder–decoders (mt5, mbart, pegasus, …) and the pre-LN options of Marian/BART are refused by name.
#include <string>

#include "core/checkpoint/generation_rules.h"

namespace attnlab {

enum class EncDecFamily { Marian, Bart, T5 };
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
  double layerNormEps = 1e-5;  ///< nn.LayerNorm's default for Marian/BART (their configs carry none); T5's field
  int encoderHeadDim = 0, decoderHeadDim = 0;  ///< d_head: d / heads, or T5's d_kv (heads·d_kv may differ from d)
  // T5 only:
  bool preNormRms = false;  ///< x ← x + f(RMSNorm(x)) with a final RMSNorm per stack, instead of x ← LN(x + f(x))
  bool gatedFfn = false;    ///< wo(act(wi_0·x) ⊙ wi_1·x) (feed_forward_proj "gated-gelu")
  int relativeBuckets = 0, relativeMaxDistance = 0;  ///< relative_attention_num_buckets / _max_distance
  double lmHeadScale = 1.0;                          ///< d^-0.5 with T5's tied lm_head, else 1
  /// generation_config.json's (else config.json's) rules for choosing tokens: what Translate, Generate N and Next
  /// token apply as transformers' generate() does.
  GenerationRules generation;

  int encoderHeadWidth() const { return encoderHeadDim; }
  int decoderHeadWidth() const { return decoderHeadDim; }
  int encoderAttnWidth() const { return encoderHeads * encoderHeadDim; }
  int decoderAttnWidth() const { return decoderHeads * decoderHeadDim; }
  bool isT5() const { return family == EncDecFamily::T5; }
};

const char* toString(EncDecFamily f);
/// T5's bucket of relative position `rel` = key − query (T5Attention._relative_position_bucket; its logarithm in
/// float as torch computes it, so the boundaries fall where Hugging Face's do).
int t5RelativeBucket(int rel, bool bidirectional, int buckets, int maxDistance);
/// Whether config.json's model_type names an encoder–decoder (supported or not): the checkpoint opener's test.
bool isEncoderDecoderType(const std::string& modelType);
/// Reads `dir`/config.json (and the generation rules: generation_config.json beside it, else config.json's); throws
/// InputError naming the file and the field for anything missing, out of range or not supported (an encoder–decoder
/// family this program does not run is named in the message).
EncDecConfig readEncDecConfig(const std::string& configPath);

}  // namespace attnlab
