#pragma once
// Finds and reads the tokenizer files of a Hugging Face checkpoint folder.
//   gpt2:            tokenizer.json (model BPE), else vocab.json + merges.txt
//   bert/distilbert: tokenizer.json (model WordPiece), else vocab.txt
//   others:          tokenizer.json, else Marian's source.spm + target.spm + vocab.json, else spiece.model
// tokenizer_config.json and special_tokens_map.json supply the options the plain files lack (lower
// casing, special tokens). tokenizer.json is preferred because it is what Hugging Face's AutoTokenizer
// loads by default.
#include <memory>
#include <string>

#include "core/text/tokenizer.h"

namespace attnlab {

/// `family` is "gpt2" or "bert". Throws InputError naming the file and the problem.
std::unique_ptr<TextTokenizer> loadTokenizer(const std::string& dir, const std::string& family);

/// The general tokenizer.json engine (hf_tokenizer.h) for any family: dir/tokenizer.json, with
/// dir/tokenizer_config.json when present. Throws InputError naming the file and the problem.
std::unique_ptr<TextTokenizer> loadTokenizerJsonEngine(const std::string& dir);

/// Any family's folder, by the files it has: tokenizer.json (the engine above), else Marian's
/// source.spm / target.spm / vocab.json, else T5's spiece.model (sentencepiece_tokenizer.h). Throws
/// InputError naming what is missing.
std::unique_ptr<TextTokenizer> loadTokenizerForFolder(const std::string& dir);

}  // namespace attnlab
