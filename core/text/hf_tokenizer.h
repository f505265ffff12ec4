#pragma once
// One engine for every Hugging Face tokenizer.json (Llama-3, Qwen2/2.5/3, Mistral/Mixtral, SmolLM,
// Gemma, GPT-2, BERT, …): added tokens → normalizer → pre-tokenizer → model → post-processor, each step
// computed as Hugging Face's `tokenizers` computes Tokenizer.encode(text, addSpecialTokens) from the
// same file. Token.text is the vocabulary string ("Ġcat", "▁cat", "<0x0A>"; token_display.h makes it
// readable); spans point into the ORIGINAL text, following Hugging Face's alignment: a token made of
// some bytes of a character (byte-level BPE, <0xNN> byte fallback) spans the whole character, a
// normalizer's inserted characters take the span of the character they attach to, and the template's
// special tokens have empty spans.
//
// tokenizer_config.json is used only where the post-processor adds nothing: add_bos_token /
// add_eos_token then put bos_token / eos_token around the sequence (older Llama-2/Mistral files).
// transformers' AutoTokenizer (LlamaTokenizerFast, GemmaTokenizerFast) rebuilds the template from those
// flags even when the file has one; for the supported families both agree.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/hf_models.h"
#include "core/text/hf_normalizers.h"
#include "core/text/token_display.h"
#include "core/text/tokenizer.h"

namespace attnlab {

class HfTokenizer : public TextTokenizer {
 public:
  /// `tokenizerJson` is tokenizer.json parsed; `config` is tokenizer_config.json (or an empty object);
  /// `file` names the file in messages. Throws InputError naming the file and the component.
  static std::unique_ptr<HfTokenizer> fromJson(const nlohmann::json& tokenizerJson, const nlohmann::json& config,
                                               const std::string& file);

  TokenizedText encode(std::string_view text, bool addSpecial) const override;
  int vocabSize() const override { return static_cast<int>(idToToken_.size()); }
  int tokenToId(const std::string& token) const;  ///< −1 when unknown
  std::string pieceOf(int id) const override { return idToToken(id); }
  int idOf(const std::string& piece) const override { return tokenToId(piece); }
  const std::string& idToToken(int id) const;  ///< "" when out of range
  std::vector<int> specialIds() const;         ///< ids of the special added tokens
  /// How pieces are written (byte-level stand-ins or SentencePiece's ▁), for tokenDisplayText.
  TokenDisplayStyle displayStyle() const { return displayStyle_; }

 private:
  struct Added {
    std::string content;
    std::u32string normalizedContent;  ///< for tokens matched after normalization
    int id = 0;
    bool special = false, lstrip = false, rstrip = false, singleWord = false, normalized = false;
  };
  /// A stretch of text cut out by added tokens: plain text [begin, end), or an added token.
  struct Segment {
    std::size_t begin, end;
    const Added* added;
  };

  HfTokenizer() = default;
  int addedId(const std::string& content) const;
  void readAddedTokens(const nlohmann::json& list, const std::string& file);
  void readPostProcessor(const nlohmann::json& pp, const std::string& file);
  void applyConfig(const nlohmann::json& config);
  std::vector<Segment> splitOnAdded(std::string_view text) const;
  struct Piece {
    int id;
    ByteSpan span;
    std::string text;  ///< the vocabulary string, or an added token's matched text
  };
  /// Normalizes, pre-tokenizes and models one plain stretch.
  void encodePlain(std::string_view text, std::size_t begin, std::size_t end, std::vector<Piece>& out) const;
  void encodeNormalizedPiece(const NormalizedText& piece, std::vector<Piece>& out) const;
  void trimOffsets(std::vector<Piece>& tokens) const;

  HfNormalizer normalizer_;
  HfPreTokenizer preTokenizer_;
  std::unique_ptr<HfTokenModel> model_;
  std::vector<Added> added_;
  std::vector<std::vector<const Added*>> addedByFirstByte_;                        ///< normalized = false
  std::unordered_map<char32_t, std::vector<const Added*>> normalizedByFirstChar_;  ///< normalized = true
  std::unordered_map<std::string, int> addedIds_;
  int maxAddedId_ = -1;
  std::vector<std::string> idToToken_;
  SpecialTemplate template_;
  bool trimOffsets_ = false, trimPrefixSpace_ = false;
  TokenDisplayStyle displayStyle_ = TokenDisplayStyle::Metaspace;
};

}  // namespace attnlab
