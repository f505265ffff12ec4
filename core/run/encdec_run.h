#pragma once
// An encoder–decoder in the program (issue 33): the model the parameters name when their folder holds a Marian, BART
// or T5 checkpoint, and the run of its two texts. Params::sentence is the source (the encoder's text),
// Params::target the target (the decoder's: typed, or filled by Translate / Next token). The run keeps the whole
// EncDecTrace; each stack is also handed out as an ordinary PipelineResult (its Trace, its tokens, a Model that
// describes that stack), so every single-text view shows the encoder or the decoder unchanged.
#include <memory>
#include <string>
#include <vector>

#include "core/checkpoint/encdec_folder.h"
#include "core/run/pipeline.h"
#include "core/run/two_text_model.h"

namespace attnlab {

/// A target as the decoder reads it: `text` (valid UTF-8, what the editor shows) and after it `pending`, generated
/// byte-level ids whose bytes do not yet make whole characters (BART splits 😀 = F0 9F 98 80 over up to four pieces:
/// after two of them the text stays "cat" and pending is [ð, Ł]). The decoder input is the text's tokens, then the
/// pending ids: exactly the ids generated. Empty `pending` for a typed target and for every vocabulary that is not
/// byte-level. Converts from a plain text (no pending ids).
struct TargetText {
  std::string text;
  std::vector<int> pending;
  TargetText(std::string t = {}, std::vector<int> p = {}) : text(std::move(t)), pending(std::move(p)) {}
  TargetText(const char* t) : text(t) {}
  bool operator==(const TargetText& o) const { return text == o.text && pending == o.pending; }
};

/// What makeModel returns for an encoder–decoder folder: the folder (model and both tokenizers) behind the Model
/// interface, so that the window's model cache, progress and error paths stay as they are. info() and tokenize()
/// describe the decoder (the stack whose logits predict); forward() refuses (one text is not enough):
/// runEncDecPipeline runs both (forwardTexts).
class EncDecFolderModel : public TwoTextModel {
 public:
  EncDecFolderModel(EncDecFolder folder, std::string name);
  ModelInfo info() const override;
  TokenizedText tokenize(const std::string& text) const override;
  Trace forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const override;
  std::string vocabularyPiece(int id) const override;
  int vocabularySize() const override;
  bool isReservedToken(int id) const override;

  const EncDecModel& model() const { return *folder_->model; }
  const TextTokenizer& sourceTokenizer() const { return *folder_->source; }
  const TextTokenizer& targetTokenizer() const { return *folder_->target; }
  /// The source text's tokens as the encoder reads them (Marian: with its eos appended).
  TokenizedText tokenizeSource(const std::string& text) const override;
  /// The decoder's input for a target text (decoderInputOf): what `attnlab dump --target` reads too.
  TokenizedText tokenizeTarget(const std::string& text) const override { return tokenizeTarget(text, {}); }
  /// The same, then the pending ids (TargetText), each a token with its vocabulary piece and an empty span at the
  /// text's end. InputError for a pending id outside the target vocabulary.
  TokenizedText tokenizeTarget(const std::string& text, const std::vector<int>& pending) const;
  /// EncDecModel::forward with logits; the traces' tokens are the vocabularies' pieces.
  EncDecTrace forwardTexts(const TokenizedText& source, const TokenizedText& target, const EncDecReuse& reuse,
                           const EncDecAblation& ablation, const RunControl& control) const override;
  int maxPositions() const override { return model().config().maxPositions; }
  bool hasOutputHead() const override { return true; }
  const EncDecFolderModel* folder() const override { return this; }
  /// Target ids as text: each piece with SentencePiece's "▁" as a space (WordPiece: "##" joins, else a space), or,
  /// for a byte-level BPE target (BART's), the bytes its stand-ins name ("Ġsat" → " sat"; a character split over
  /// pieces whole, one cut off at the end as U+FFFD); the special ids (start, eos, pad, the tokenizer's template ids)
  /// left out, the leading space dropped. Tokenizing the result again gives the ids back for ordinary pieces.
  std::string decodeTarget(const std::vector<int>& ids) const;
  /// The text one more target id appends to `target` ("▁Haus" → " Haus", "Ġsat" → " sat"; no leading space on an
  /// empty target). Byte-level pieces append raw bytes: a character's first byte alone is not valid UTF-8 until the
  /// next piece completes it (appendGenerated keeps such bytes pending instead).
  std::string appendPiece(const std::string& target, int id) const;
  /// One generated id after `target`, keeping the text valid UTF-8: the text with the pending ids and this one
  /// appended (appendPiece) when that is valid UTF-8 (the pending ids then emptied), else the same text with `id`
  /// added to the pending ids. [cat] + ð → "cat" pending [ð]; + Ł, ĺ → pending [ð, Ł, ĺ]; + Ģ → "cat😀", none pending.
  TargetText appendGenerated(const TargetText& target, int id) const;
  /// Generated ids from an empty target, one appendGenerated each: Translate's text and its cut-off character.
  TargetText decodeGenerated(const std::vector<int>& ids) const;
  /// The bytes the pending ids stand for (raw: not UTF-8 on their own), for the window's "+2 bytes" marker.
  std::string pendingBytes(const std::vector<int>& pending) const;
  /// A Model describing one stack (its layers, heads, tokenizer), as the views' results carry.
  std::shared_ptr<const Model> stackModel(bool decoder) const override;
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<const EncDecFolder> folder_;
  std::string name_;
  /// True when no target piece starts with "▁" (a WordPiece vocabulary of whole words, as builtin:reverse's): a piece
  /// is then a word joined with a space, "##…" a continuation.
  bool wordPieces_ = false;
  /// True when the target tokenizer is byte-level BPE (isByteLevel in the .cpp): pieces decode to the bytes they name.
  bool byteLevel_ = false;
  /// The ids the target tokenizer adds around any text (BART's <s> and </s>): a generated one is not written into the
  /// target text, since decoderInputOf adds it again when the text is read (BART's forced <s> would come twice).
  std::vector<int> targetSpecials_;
};

/// The decoder's input for `labels` as Hugging Face shifts them right: decoder_start_token_id, then the labels without
/// a final eos (the last label, never an input: the last row predicts it). Labels [<s>, 9, 7, </s>] → [start, <s>, 9,
/// 7].
std::vector<int> decoderInputIds(const EncDecConfig& c, std::vector<int> labels);
/// The decoder's input for a target text, the one rule of the window and the command line (issue 33's contract): the
/// labels are the target tokenizer's encoding WITH its special tokens (BART's <s> … </s>, Marian's and T5's … </s>),
/// shifted right by decoderInputIds. The start token has an empty span; a blank text is read as the tokenizer's
/// template alone (no target yet: Marian's and T5's start token alone, BART's start token and <s> — where its
/// forced_bos_token_id leads, so Next token on an empty BART target writes a word, not the <s> the text cannot hold).
/// Tokens carry the tokenizer's display text and spans (the start token: its vocabulary piece).
TokenizedText decoderInputOf(const EncDecConfig& c, const TextTokenizer& target, const std::string& text);

/// The encoder–decoder in `dir` (openEncDecFolder), named `name` or, when that is empty, after the folder. Throws
/// InputError as that does.
std::shared_ptr<const EncDecFolderModel> openEncDecModel(const std::string& dir, const RunControl& control = {},
                                                         const std::string& name = {});

/// True when `dir`/config.json names an encoder–decoder model_type (supported or not: readEncDecConfig names the
/// unsupported ones). False when there is no readable config.json.
bool isEncDecFolder(const std::string& dir);

/// The encoder–decoder run beside a PipelineResult. The pipeline's result is the decoder's side (trace = the decoder's
/// Trace, text = the target's tokens) and its `encoderSide` the encoder's; both sides carry an EncDecRun (the encoder's
/// without encoderSide, so that nothing owns itself), sharing one `trace`, which keeps the cross-attention, the logits
/// and the stacks' outputs; its encoder and decoder Traces are moved into the two sides (left empty there).
struct EncDecRun {
  std::shared_ptr<const TwoTextModel> model;  ///< a folder or the built-in rung 7 (model->folder() tells)
  TokenizedText source, target;               ///< the encoder's tokens, the decoder's (start token first)
  std::shared_ptr<const EncDecTrace> trace;
  EncDecAblation ablation;                            ///< the heads the run switched off (encDecReuse compares them)
  std::shared_ptr<const PipelineResult> encoderSide;  ///< null on the encoder's side
  bool isDecoderSide() const { return encoderSide != nullptr; }
  /// The greedy next target token after the target: argmax of the last logits row after the folder's generation
  /// rules (a token they ban is skipped, a forced one taken), as Translate chooses.
  int nextTokenId() const;
};

/// The model a result ran on as a whole: a two-text run's encoder–decoder (an EncDecFolderModel, which the model
/// card describes with both stacks, or the built-in rung 7), else r.model.
std::shared_ptr<const Model> wholeModel(const PipelineResult& r);

/// The source's tokens as the encoder reads them, checked: InputError for an empty source, invalid UTF-8 (its byte
/// offset) or more tokens than the model's positions (both lengths named).
TokenizedText checkedSource(const TwoTextModel& model, const std::string& source);

/// The heads p.prediction switches off, per attention (prediction_settings.h: ablate = the decoder's self-attention).
EncDecAblation encDecAblationOf(const PredictionSettings& s);

/// Runs both texts of p (sentence = source, target followed by p.targetPending) through `model` (a folder or the
/// built-in rung 7), with the heads of p.prediction switched off. Throws InputError for an empty source (the built-in
/// rung: an empty target too), invalid UTF-8 in either text (with its byte offset), either text longer than the
/// model's positions (both lengths named) and a selection outside the decoder; Cancelled before the forward pass when
/// the flag is raised. `previous` (the window's last result, the decoder's side) lends what encDecReuse allows: an edit
/// of the target alone runs only the decoder, one at the target's end only its new rows; the numbers are a fresh run's.
PipelineResult runEncDecPipeline(const Params& p, std::shared_ptr<const TwoTextModel> model,
                                 const RunControl& control = {},
                                 std::shared_ptr<const PipelineResult> previous = nullptr);

/// What a run of `source` and `target` by `model`, with `ablation`, may take from `previous`: its encoder (and every
/// cross head's K and V) when everything the encoder reads is the same (the model object, the source ids, the
/// encoder's ablation), then, when the decoder's and the cross-attention's ablations are the same too, the decoder's
/// rows before the first changed target id (at most n_tgt − 1). The one place reuse is decided: anything a stack's
/// forward pass starts to read belongs in its comparison here. Pointers point into `previous`.
EncDecReuse encDecReuse(const PipelineResult* previous, const EncDecFolderModel& model, const TokenizedText& source,
                        const TokenizedText& target, const EncDecAblation& ablation);

/// Greedy translation of `source` (KV-cached decoding, cross K/V made once): the generated ids (eos included when
/// reached) and their text. Checks the source as runEncDecPipeline does. With a non-empty `ablation` each token is
/// the argmax of the ablated full pass's last row (generateTarget's uncached path: what Next token gives repeatedly).
struct Translation {
  std::vector<int> ids;
  std::string text;
};
Translation translateGreedy(const EncDecFolderModel& model, const std::string& source, int maxNewTokens,
                            const EncDecAblation& ablation = {});

}  // namespace attnlab
