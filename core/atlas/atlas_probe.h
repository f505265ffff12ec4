#pragma once
// The head atlas's probe (issue 17): [BOS] r₁…r_T r₁…r_T, T random tokens repeated once, the input on which
// previous-token, induction and duplicate-token heads show themselves plainly (TransformerLens's induction probe).
#include <string>
#include <vector>

#include "core/atlas/head_atlas.h"
#include "core/model/model.h"

namespace attnlab {

/// Draws the probe for `model`. Random tokens come uniformly from the vocabulary without special tokens (the
/// ids the tokenizer adds itself, the model's reserved ids, "<|…|>", "[CLS]"-like and "<s>"-like pieces; the
/// byte-fallback "<0x..>" pieces stay), distinct while the vocabulary allows, else with repetition and a note.
/// The framing is the model's own: the tokens its tokenizer puts around a text (Llama's <s>, BERT's [CLS] …
/// [SEP], the tiny models' <bos>), else GPT-2's <|endoftext|> as TransformerLens prepends it, else none. The
/// built-in model, which reads words, gets words from a fixed list of common English words.
/// Throws InputError for T < 2 or a probe longer than the model's context (naming both lengths).
AtlasProbe makeProbe(const Model& model, int repeat, unsigned long long seed);

/// The probe as the model's input: tokens (display strings as the tokenizer writes them) and ids.
TokenizedText probeText(const AtlasProbe& probe);

/// Whether a vocabulary piece looks like a special token rather than text: "<|…|>", "[CLS]", "[unused3]",
/// "<s>", "<pad>", "<start_of_turn>"… ("<0x0A>" byte-fallback pieces are text).
bool looksLikeSpecialPiece(const std::string& piece);

}  // namespace attnlab
