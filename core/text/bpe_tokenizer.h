#pragma once
// GPT-2's byte-level BPE. Each piece of the pre-tokenizer is taken as bytes, each byte written as one
// printable stand-in character (space → "Ġ", newline → "Ċ", as in OpenAI's bytes_to_unicode), and
// adjacent symbols are merged by the rank of their pair in the merges list, lowest rank first, until no
// ranked pair is left. Token strings are vocabulary strings ("Ġcat").
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/tokenizer.h"

namespace attnlab {

class Utf16Offsets;

struct BpeOptions {
  bool addPrefixSpace = false;  ///< a space before text that does not start with one (RoBERTa style)
  std::string unkToken;         ///< used for bytes missing from the vocabulary; empty: such bytes are dropped
  std::vector<std::string> specialTokens;  ///< matched verbatim in the text (e.g. <|endoftext|>)
  std::vector<std::string> bosTokens;      ///< prepended when special tokens are asked for
};

class BpeTokenizer : public TextTokenizer {
 public:
  /// From vocab.json text and merges.txt text; file names are for messages. Throws InputError.
  static BpeTokenizer fromFiles(const std::string& vocabJson, const std::string& vocabName, const std::string& merges,
                                const std::string& mergesName, const BpeOptions& options);
  /// From a parsed tokenizer.json whose model.type is "BPE" (merges as "a b" strings or [a, b] pairs).
  static BpeTokenizer fromTokenizerJson(const nlohmann::json& j, const std::string& name);

  TokenizedText encode(std::string_view text, bool addSpecial) const override;
  int vocabSize() const override { return static_cast<int>(idToToken_.size()); }
  std::string pieceOf(int id) const override {
    return id >= 0 && id < vocabSize() ? idToToken_[static_cast<std::size_t>(id)] : std::string();
  }
  int idOf(const std::string& piece) const override {
    const auto it = vocab_.find(piece);
    return it == vocab_.end() ? -1 : it->second;
  }
  const std::vector<std::string>& idToToken() const { return idToToken_; }

 private:
  BpeTokenizer() = default;
  void setVocab(const nlohmann::json& vocab, const std::string& name);
  void addMerge(const std::string& a, const std::string& b, const std::string& where);
  void setSpecial(const std::vector<AddedToken>& added, const std::string& unk, const std::string& name);
  int lookup(const std::string& s) const;
  /// Appends the tokens of one pre-tokenized piece. Its byte x comes from byte srcBase + x − prefixLen of
  /// the text (the first prefixLen bytes are a prepended space, with an empty span).
  void encodePiece(std::string_view piece, std::size_t srcBase, std::size_t prefixLen, TokenizedText& out,
                   const Utf16Offsets& offsets) const;

  std::unordered_map<std::string, int> vocab_;
  std::vector<std::string> idToToken_;
  struct Merge {
    int rank, id;
  };
  std::unordered_map<std::uint64_t, Merge> merges_;  ///< key: left id << 32 | right id
  std::vector<int> byteId_;                          ///< id of each byte's stand-in, −1 when missing
  std::vector<AddedToken> added_;
  SpecialTemplate template_;
  bool addPrefixSpace_ = false;
  int unkId_ = -1;
};

/// OpenAI's bytes_to_unicode: the printable stand-in character (as UTF-8) of each byte value.
const std::vector<std::string>& byteStandIns();

}  // namespace attnlab
