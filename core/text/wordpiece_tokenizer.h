#pragma once
// BERT's WordPiece: each word of bert_normalizer.h is cut greedily into the longest vocabulary pieces
// from the left, continuation pieces carrying the "##" prefix ("playing" → "play", "##ing"); a word
// with any uncoverable part, or longer than maxCharsPerWord characters, becomes the unknown token.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/bert_normalizer.h"
#include "core/text/tokenizer.h"

namespace attnlab {

class Utf16Offsets;

struct WordPieceOptions {
  BertNormalizerOptions normalizer;
  std::string unkToken = "[UNK]";
  std::string clsToken = "[CLS]", sepToken = "[SEP]";
  std::vector<std::string> specialTokens;  ///< matched verbatim in the text ([CLS], [MASK], …)
  std::string continuingPrefix = "##";
  int maxCharsPerWord = 100;
};

class WordPieceTokenizer : public TextTokenizer {
 public:
  /// From vocab.txt text (one token per line, id = line number). Throws InputError naming the file.
  static WordPieceTokenizer fromVocabTxt(const std::string& text, const std::string& name,
                                         const WordPieceOptions& options);
  /// From a parsed tokenizer.json whose model.type is "WordPiece".
  static WordPieceTokenizer fromTokenizerJson(const nlohmann::json& j, const std::string& name);

  TokenizedText encode(std::string_view text, bool addSpecial) const override;
  /// A pair with special tokens: [CLS] A [SEP] B [SEP] (offsets of B's tokens are relative to b).
  TokenizedText encodePair(std::string_view a, std::string_view b) const;
  int vocabSize() const override { return static_cast<int>(idToToken_.size()); }
  std::string pieceOf(int id) const override {
    return id >= 0 && id < vocabSize() ? idToToken_[static_cast<std::size_t>(id)] : std::string();
  }
  int idOf(const std::string& piece) const override {
    const auto it = vocab_.find(piece);
    return it == vocab_.end() ? -1 : it->second;
  }

 private:
  WordPieceTokenizer() = default;
  void finish(const std::vector<AddedToken>& added, const std::string& name);
  int lookup(const std::string& s) const;
  void encodeWord(const std::vector<NormChar>& word, TokenizedText& out, const Utf16Offsets& offsets) const;
  TokenizedText encodePlain(std::string_view text) const;

  std::unordered_map<std::string, int> vocab_;
  std::vector<std::string> idToToken_;
  std::vector<AddedToken> added_;
  SpecialTemplate template_;
  WordPieceOptions options_;
  int unkId_ = -1;
};

}  // namespace attnlab
