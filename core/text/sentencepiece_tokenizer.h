#pragma once
// SentencePiece model files (.model / .spm) through Debian's SentencePiece library, the encoder the
// models were trained with. Two folder layouts use them without a tokenizer.json:
//   T5 (spiece.model):  the model's own ids, <extra_id_N> sentinels after them (tokenizer_config.json
//                       "extra_ids", 100 by default), </s> appended — transformers' T5Tokenizer (legacy).
//   Marian (source.spm, target.spm, vocab.json): pieces of source.spm mapped to ids through the joint
//                       vocab.json (a piece missing there → <unk>), a leading ">>xx<<" language code kept
//                       as one token and every ">>…<<" removed from the text, </s> appended —
//                       transformers' MarianTokenizer without sacremoses' punctuation normalizer.
// Special tokens typed in the text (</s>, <unk>, <pad>, sentinels) are matched first and the stretches
// between them encoded separately, as transformers' slow tokenizers do. Token spans are the byte spans
// SentencePiece reports in its immutable proto (original text, before its normalization).
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/text_offsets.h"
#include "core/text/tokenizer.h"

namespace attnlab {

class SentencePieceTokenizer : public TextTokenizer {
 public:
  struct Options {
    /// Marian: piece → id (vocab.json); empty: the model's own ids.
    std::unordered_map<std::string, int> vocab;
    std::vector<AddedToken> added;  ///< matched verbatim before encoding
    int eosId = -1;                 ///< appended with addSpecial (T5: not when the ids already end with it)
    bool languageCodes = false;     ///< Marian's ">>xx<<" handling
    int vocabSize = 0;              ///< at least this (T5: the model's pieces plus the sentinels)
  };
  /// Reads the model file; throws InputError naming `path` when it is missing or not a SentencePiece model.
  static std::unique_ptr<SentencePieceTokenizer> fromFile(const std::string& path, Options options);
  ~SentencePieceTokenizer() override;

  TokenizedText encode(std::string_view text, bool addSpecial) const override;
  int vocabSize() const override;
  std::string pieceOf(int id) const override;
  int idOf(const std::string& piece) const override;

  /// The model's own pieces (for checking them against vocab.json): (piece, is a normal/user piece).
  std::vector<std::pair<std::string, bool>> modelPieces() const;
  /// The model's own id of a piece (−1 when unknown) and its unknown piece's id.
  int modelPieceId(const std::string& piece) const;

 private:
  struct Impl;
  explicit SentencePieceTokenizer(std::unique_ptr<Impl> impl);
  void encodePlain(std::string_view text, std::size_t begin, std::size_t end, const Utf16Offsets& offsets,
                   TokenizedText& out) const;
  std::unique_ptr<Impl> impl_;
};

enum class MarianSide { Source, Target };

/// Marian's folder: source.spm, target.spm and vocab.json (tokenizer_config.json optional); the source
/// side encodes the encoder's text, the target side (target.spm) the decoder's (transformers'
/// text_target). Throws InputError for a missing file, a corrupt model, or a source/target piece missing
/// from vocab.json.
std::unique_ptr<SentencePieceTokenizer> loadMarianTokenizer(const std::string& dir,
                                                            MarianSide side = MarianSide::Source);
/// Both sides of a Marian folder, each file read once (openEncDecFolder needs both).
struct MarianTokenizers {
  std::unique_ptr<SentencePieceTokenizer> source, target;
};
MarianTokenizers loadMarianTokenizers(const std::string& dir);
/// T5's folder without tokenizer.json: spiece.model (tokenizer_config.json optional).
std::unique_ptr<SentencePieceTokenizer> loadT5SentencePiece(const std::string& dir);

}  // namespace attnlab
