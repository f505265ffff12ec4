#pragma once
// Readable text for a vocabulary piece, for showing tokens to a user: the vocabulary keeps byte-level
// stand-ins ("Ġcat", "Ċ"), SentencePiece's word marker ("▁cat") and byte-fallback pieces ("<0x0A>").
#include <string>

namespace attnlab {

enum class TokenDisplayStyle {
  Auto,       ///< guess per piece: <0xNN> → byte; all characters byte-level stand-ins → bytes; "▁" → space
  ByteLevel,  ///< the piece is byte-level BPE (GPT-2, Llama-3, Qwen)
  Metaspace,  ///< the piece is SentencePiece-style ("▁" for a space, <0xNN> for a byte)
};

/// The piece as UTF-8 text. Byte-level pieces become their bytes; bytes that do not form valid UTF-8
/// (a token holding part of a character) become U+FFFD, one per invalid byte. "▁" becomes a space and
/// "<0xNN>" the byte NN (or U+FFFD when that byte alone is not valid UTF-8).
std::string tokenDisplayText(const std::string& piece, TokenDisplayStyle style = TokenDisplayStyle::Auto);

/// The bytes the piece stands for, unchecked: a character split over two tokens is only valid UTF-8 once
/// both are joined (what generated text appends). tokenDisplayText = these bytes with invalid ones → U+FFFD.
std::string tokenBytes(const std::string& piece, TokenDisplayStyle style = TokenDisplayStyle::Auto);

}  // namespace attnlab
