#pragma once
// An encoder–decoder's folder with its tokenizers (issue 33): the model, the tokenizer of the source text (the
// encoder's) and of the target text (the decoder's). Marian's folder (source.spm, target.spm, vocab.json) has one per
// side; BART's and T5's tokenizer.json (or T5's spiece.model) serves both.
#include <memory>
#include <string>

#include "core/checkpoint/encdec_model.h"
#include "core/text/tokenizer.h"

namespace attnlab {

struct EncDecFolder {
  std::shared_ptr<EncDecModel> model;  ///< shared: decoding sessions keep it alive
  std::unique_ptr<TextTokenizer> source, target;
};

/// Opens `dir`: the model (EncDecModel::open) and its tokenizers. Throws InputError naming the missing tokenizer file,
/// or a tokenizer whose vocabulary is larger than the model's (vocab_size for the source, decoder_vocab_size for the
/// target): ids the embeddings cannot look up.
EncDecFolder openEncDecFolder(const std::string& dir);

}  // namespace attnlab
