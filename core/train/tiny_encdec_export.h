#pragma once
// Saves a trained tiny encoder–decoder (tiny_encdec_net.h) as a Hugging Face BART checkpoint folder that
// EncDecModel::open and openEncDecFolder read like any downloaded one (issue 33):
//   config.json        model_type "bart", post-LN, relu, learned positions (offset 2), tied lm_head, no
//                      final_logits_bias (zero), decoder_start = eos = </s> (2); "attnlab_task" names the task
//   model.safetensors  F32, BART's names; Linear weights transposed to [out, in]
//   tokenizer.json     WordPiece over whole words (WhitespaceSplit): the task symbols "a", "b", … (then "w26", …) and
//                      <s> <pad> </s> <unk>; the post-processor appends </s> to a source, as training does
// So "d c b a" is encoded [d, c, b, a, </s>] and greedy generation writes "a b c d </s>".
#include <string>
#include <vector>

#include "core/train/tiny_encdec_trainer.h"

namespace attnlab {

/// The vocabulary strings by id: <s> <pad> </s> <unk>, then one per task symbol.
std::vector<std::string> tinyEncDecVocabulary(const TinyEncDecConfig& c);

/// Creates `dir` when missing and writes the three files. Throws InputError naming a path that cannot be written.
void saveTinyEncDecModel(const std::string& dir, const EncDecTrainSettings& settings,
                         const TinyEncDecParams<float>& params);

}  // namespace attnlab
