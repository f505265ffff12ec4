#pragma once
// What the checkpoint tokenizers (GPT-2 byte-level BPE, BERT WordPiece) share: the interface the
// models and the command line use, added tokens (special tokens such as <|endoftext|> or [CLS] typed
// in the text are matched before anything else, as Hugging Face's tokenizers do), and the template of
// special tokens wrapped around a sequence.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text/word_tokenizer.h"

namespace attnlab {

class TextTokenizer {
 public:
  virtual ~TextTokenizer() = default;
  /// Cuts `text` (UTF-8; invalid bytes are tolerated) into tokens: vocabulary strings, ids and the
  /// byte/UTF-16 spans of the text they came from. `addSpecial` wraps the sequence in the model's
  /// special tokens ([CLS] … [SEP] for BERT), which have empty spans.
  virtual TokenizedText encode(std::string_view text, bool addSpecial) const = 0;
  /// One more than the largest id.
  virtual int vocabSize() const = 0;
  /// The vocabulary string of an id ("Ġcat", "▁cat", "[CLS]"); "" when out of range.
  virtual std::string pieceOf(int id) const = 0;
  /// The id of a vocabulary string (added tokens included); −1 when unknown.
  virtual int idOf(const std::string& piece) const = 0;
};

/// A token matched verbatim in the text before normal tokenization.
struct AddedToken {
  std::string content;
  int id = 0;
};

/// A stretch of the text: either ordinary text [begin, end) or one added token (addedId ≥ 0).
struct TextSegment {
  std::size_t begin = 0, end = 0;
  int addedId = -1;
};

/// Splits `text` on occurrences of added tokens (longest match first, scanning left to right).
std::vector<TextSegment> splitOnAddedTokens(std::string_view text, const std::vector<AddedToken>& added);

/// Special tokens around one sequence (prefix A suffix) and a pair (pairPrefix A pairMiddle B pairSuffix).
struct SpecialTemplate {
  std::vector<int> prefix, suffix;
  std::vector<int> pairPrefix, pairMiddle, pairSuffix;
};

/// Reads a tokenizer.json "post_processor" (TemplateProcessing, BertProcessing, RobertaProcessing,
/// ByteLevel, null). `lookup` maps a token string to its id (−1 if unknown). Throws InputError.
SpecialTemplate parsePostProcessor(const nlohmann::json& pp, const std::string& file,
                                   const std::function<int(const std::string&)>& lookup);

/// Adds special tokens with empty spans at the start (offset 0) and end (offset = text length).
void wrapWithSpecial(TokenizedText& t, const SpecialTemplate& tpl, const std::vector<std::string>& idToToken,
                     std::string_view text);

/// The "content" of a special-token entry of tokenizer_config.json / special_tokens_map.json, written
/// either as a string or as {"content": …}; empty when absent or null.
std::string specialTokenContent(const nlohmann::json& entry);

}  // namespace attnlab
