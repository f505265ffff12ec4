#pragma once
// The interface every model of the program implements: the built-in random transformer, and (from
// the checkpoint loaders) GPT-2 and BERT. Views and analyses only ever see a Model and its Trace.
#include <memory>
#include <string>
#include <vector>

#include "core/base/run_control.h"
#include "core/model/decode_session.h"
#include "core/model/intervention.h"
#include "core/model/trace.h"
#include "core/model/unembedding.h"
#include "core/text/word_tokenizer.h"

namespace attnlab {

struct ModelInfo {
  std::string name;  ///< shown in the title bar and figure captions
  std::string kind;  ///< "builtin", "gpt2", "bert", …
  int layers = 0, heads = 0, dModel = 0, dHead = 0;
  int maxTokens = 0;  ///< longest input the model accepts
  int kvHeads = 0;    ///< key/value heads (grouped-query attention); 0 = one per query head
  /// How the tokenizer writes its pieces, for display: "byte-level" (GPT-2, Llama 3, Qwen: "Ġcat"),
  /// "metaspace" (SentencePiece style: "▁cat", "<0x0A>"), or "" (plain words, WordPiece).
  std::string pieceStyle;
};

/// Held through a shared_ptr (loadCheckpoint, makeModel): a long input's trace keeps it to recompute the outputs it
/// does not store (Trace::outputsFrom); a model made otherwise gets traces that store them.
class Model : public std::enable_shared_from_this<Model> {
 public:
  virtual ~Model() = default;
  virtual ModelInfo info() const = 0;
  virtual TokenizedText tokenize(const std::string& text) const = 0;
  /// Runs the model and records every intermediate, with the ablations and patches of `iv` applied
  /// (intervention.h). Throws InputError (empty or too long input, an intervention the model cannot make
  /// or that names a head it lacks) and Cancelled (between layers, when the control's flag is raised).
  virtual Trace forward(const TokenizedText& text, const RunControl& control = {},
                        const Intervention& iv = {}) const = 0;
  /// The stream after the last layer at the last position [d] of `text` run with each of `ivs`, where `base`
  /// is the plain traced run of `text`: all that activation patching reads. GPT-2 and the decoders resume
  /// patches and ablations from base (resumed_runs.h); the default runs one full forward pass each. Equal either way up
  /// to float rounding.
  virtual std::vector<Vec> lastRowsWith(const TokenizedText& text, const Trace& /*base*/,
                                        const std::vector<Intervention>& ivs) const {
    std::vector<Vec> rows;
    for (const Intervention& iv : ivs)
      rows.push_back(forward(text, {}, iv).layers.back().residualOut.bottomRows(1).transpose());
    return rows;
  }

  /// The stream after the last layer at rows `rows` (distinct, ascending) [rows.size(), d] of `text` run with each
  /// of `ivs` (ablations and patches), `base` the plain traced run of `text`: what the atlas's ablation effect reads.
  /// GPT-2 and the decoders resume the runs from base, stacked (resumed_runs.h); the default runs one full forward
  /// pass each. Equal either way up to float rounding.
  virtual std::vector<Mat> rowsWith(const TokenizedText& text, const Trace& /*base*/,
                                    const std::vector<Intervention>& ivs, const std::vector<int>& rows) const {
    std::vector<Mat> out;
    for (const Intervention& iv : ivs) {
      const Trace t = forward(text, {}, iv);
      Mat m(static_cast<Eigen::Index>(rows.size()), t.layers.back().residualOut.cols());
      for (std::size_t k = 0; k < rows.size(); ++k)
        m.row(static_cast<Eigen::Index>(k)) = t.layers.back().residualOut.row(rows[k]);
      out.push_back(std::move(m));
    }
    return out;
  }

  /// The final norm and unembedding (unembedding.h), for predictions, the logit lens and attribution;
  /// nullptr for a model without one (the built-in model has no vocabulary; a BERT checkpoint without its MLM head).
  virtual const Unembedding* unembedding() const { return nullptr; }
  /// The id of the token a masked language model predicts at ([MASK] for BERT with its MLM head); −1 for a model
  /// that predicts the next token (or nothing).
  virtual int maskTokenId() const { return -1; }
  /// The vocabulary string of an id ("Ġcat"), "" when out of range or without a vocabulary.
  virtual std::string vocabularyPiece(int /*id*/) const { return {}; }
  /// The id of a vocabulary string, −1 when unknown.
  virtual int vocabularyId(const std::string& /*piece*/) const { return -1; }
  /// A key/value-cached decoding session (decode_session.h) that has read `promptIds` (at least one); nullptr
  /// for a model without one (built-in, BERT, tiny). Throws InputError for a prompt the model cannot take.
  virtual std::unique_ptr<DecodeSession> startDecoding(const std::vector<int>& /*promptIds*/,
                                                       const RunControl& /*control*/ = {}) const {
    return nullptr;
  }

  /// Ids [0, vocabularySize()) are the ids forward() accepts; 0 for a model without a vocabulary (built-in, which
  /// reads words). The head atlas's probe draws random tokens from them.
  virtual int vocabularySize() const { return 0; }
  /// Whether `id` is a token the model's own input format reserves (BOS, separators, padding) that the
  /// vocabulary's piece does not reveal; the atlas's probe also skips pieces that look special ("<|…|>", "[CLS]").
  virtual bool isReservedToken(int /*id*/) const { return false; }
  /// The token embedding W_E as a [vocab, d] view of the model's storage (no copy), for the OV circuit's copying
  /// score (W_E·W_V·W_O·W_U); data == nullptr for a model without a vocabulary.
  virtual UnembeddingView tokenEmbeddings() const {
    return UnembeddingView(nullptr, 0, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(0, 0));
  }
  /// Layer `layer`'s value and output weights in the x·W convention, without biases: wv [d, H_kv·d_head] (kv head g
  /// in columns g·d_head …, H_kv = info().kvHeads or H), wo [H·d_head, d] (query head h in rows h·d_head …).
  /// False for a model that cannot give them (the built-in model).
  virtual bool ovCircuitWeights(int /*layer*/, Mat& /*wv*/, Mat& /*wo*/) const { return false; }

  /// What layer `layer`'s attention adds to the residual stream for heads' outputs `concat` [m, H·d_head] (after the
  /// heads' ablations and patches): concat·W_O (+ b_O), after Gemma 2/3's post-norm [m, d], as forward() computes it.
  /// For the traces that keep no attention or MLP outputs (Trace::outputsFrom, layer_outputs.h); a model whose traces
  /// always keep them (built-in, BERT, tiny) throws std::logic_error.
  virtual Mat attentionOutput(int layer, const Mat& concat) const;
};

}  // namespace attnlab
