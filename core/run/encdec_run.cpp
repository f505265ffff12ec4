#include "core/run/encdec_run.h"

#include <algorithm>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/run/builtin_two_text.h"
#include "core/run/encdec_generate.h"
#include "core/text/bpe_tokenizer.h"
#include "core/text/hf_tokenizer.h"
#include "core/text/token_display.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

const char* kMetaspace = "\xE2\x96\x81";  // "▁", SentencePiece's word start

/// True when the tokenizer writes its pieces in byte-level stand-ins (GPT-2's BPE; a tokenizer.json naming ByteLevel,
/// as BART's): its decoder maps each piece's characters back to bytes ("Ġsat" → " sat", "Ã" "©" → "é").
bool isByteLevel(const TextTokenizer& t) {
  if (dynamic_cast<const BpeTokenizer*>(&t)) return true;
  const auto* hf = dynamic_cast<const HfTokenizer*>(&t);
  return hf && hf->displayStyle() == TokenDisplayStyle::ByteLevel;
}

void checkLength(const TokenizedText& t, int limit, const char* which);

/// One stack of the pair as a single-text Model: the views read its info() (layers, heads, widths), tokenizer and (the
/// decoder's) unembedding.
/// The encoder's forward() runs the encoder alone on a text (as the source), with heads switched off (zero or mean):
/// what the views that run the model on other texts (the head atlas, similar heads, head contexts, a second text to
/// compare) need. The decoder's refuses — it reads a source's encoding, and a view running other texts has none —
/// as do patching, resampling and hooks on the encoder, so those views say why instead of drawing a wrong picture.
class EncDecStackModel : public Model {
 public:
  EncDecStackModel(std::shared_ptr<const EncDecFolder> folder, std::string name, bool decoder)
      : folder_(std::move(folder)), name_(std::move(name)), decoder_(decoder) {}

  ModelInfo info() const override {
    const EncDecConfig& c = folder_->model->config();
    ModelInfo i;
    i.name = name_ + (decoder_ ? " · decoder" : " · encoder");
    i.kind = c.modelType;
    i.layers = decoder_ ? c.decoderLayers : c.encoderLayers;
    i.heads = decoder_ ? c.decoderHeads : c.encoderHeads;
    i.dModel = c.dModel;
    i.dHead = decoder_ ? c.decoderHeadDim : c.encoderHeadDim;
    i.maxTokens = c.maxPositions > 0 ? c.maxPositions : 1 << 20;
    i.pieceStyle = isByteLevel(tokenizer()) ? "byte-level" : "metaspace";  // BART's "Ġsat" is drawn "·sat"
    return i;
  }
  TokenizedText tokenize(const std::string& text) const override {
    return (decoder_ ? folder_->target : folder_->source)->encode(text, !decoder_);
  }
  Trace forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const override {
    if (decoder_)
      throw InputError(
          "the decoder of an encoder–decoder reads the source's encoding, so it cannot run other texts alone: this "
          "view needs a single-text model or the encoder stack");
    if (iv.mode == AblationMode::Resample || iv.source || iv.residualLayer >= 0 || iv.hooks)
      throw InputError(
          "the encoder of an encoder–decoder runs alone with heads switched off (zero or mean) only: patching, "
          "resampling and hooks need a single-text model");
    const EncDecConfig& c = folder_->model->config();
    checkLength(text, c.maxPositions, "text");
    control.checkpoint(0.0);
    EncDecAblation ablation;
    ablation.encoder.ablate = iv.ablate;
    ablation.encoder.mode = iv.mode;
    // The decoder's start token alone: the encoder's Trace does not depend on it (one decoder row, no logits).
    Trace t = folder_->model->forward(text.ids, {c.decoderStartId}, false, ablation).encoder;
    control.checkpoint(1.0);
    return t;
  }
  std::string vocabularyPiece(int id) const override { return tokenizer().pieceOf(id); }
  int vocabularySize() const override { return tokenizer().vocabSize(); }
  /// The decoder's final step (EncDecModel::decoderUnembedding): its prediction and logit lens read the decoder's
  /// Trace as any model's. The encoder predicts nothing.
  const Unembedding* unembedding() const override { return decoder_ ? &folder_->model->decoderUnembedding() : nullptr; }
  bool isReservedToken(int id) const override {
    const EncDecConfig& c = folder_->model->config();
    return id == c.eosId || id == c.padId || (decoder_ && id == c.decoderStartId);
  }

 private:
  const TextTokenizer& tokenizer() const { return decoder_ ? *folder_->target : *folder_->source; }
  std::shared_ptr<const EncDecFolder> folder_;
  std::string name_;
  bool decoder_;
};

void checkText(const std::string& text, const char* which) {
  if (!utf8::isValid(text)) {
    std::size_t at = 0;
    while (at < text.size()) {
      const utf8::CodePoint cp = utf8::decode(text, at);
      if (!cp.valid) break;
      at += cp.size;
    }
    throw InputError(std::string("the ") + which + " text is not valid UTF-8 (byte " + std::to_string(at) + ")");
  }
}

void checkLength(const TokenizedText& t, int limit, const char* which) {
  // A folder's tokens have ids; the built-in rung's words have none.
  const std::size_t n = std::max(t.ids.size(), t.tokens.size());
  if (limit > 0 && static_cast<int>(n) > limit)
    throw InputError(std::string("the ") + which + " has " + std::to_string(n) +
                     " tokens, but the model takes at most " + std::to_string(limit) + " positions");
}

bool blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

EncDecFolderModel::EncDecFolderModel(EncDecFolder folder, std::string name)
    : folder_(std::make_shared<const EncDecFolder>(std::move(folder))), name_(std::move(name)) {
  byteLevel_ = isByteLevel(*folder_->target);
  wordPieces_ = !byteLevel_;
  for (int id = 0; id < folder_->target->vocabSize() && wordPieces_; ++id)
    if (folder_->target->pieceOf(id).rfind(kMetaspace, 0) == 0) wordPieces_ = false;
  try {
    targetSpecials_ = folder_->target->encode("", true).ids;  // the template alone: [<s>, </s>] for BART
  } catch (const std::exception&) {
    targetSpecials_.clear();  // a tokenizer that refuses an empty text adds nothing we could tell apart
  }
}

ModelInfo EncDecFolderModel::info() const { return stackModel(true)->info(); }

TokenizedText EncDecFolderModel::tokenize(const std::string& text) const { return tokenizeSource(text); }

Trace EncDecFolderModel::forward(const TokenizedText&, const RunControl&, const Intervention&) const {
  throw InputError("an encoder–decoder runs a source and a target text together (runEncDecPipeline)");
}

std::string EncDecFolderModel::vocabularyPiece(int id) const { return folder_->target->pieceOf(id); }
int EncDecFolderModel::vocabularySize() const { return folder_->target->vocabSize(); }
bool EncDecFolderModel::isReservedToken(int id) const { return stackModel(true)->isReservedToken(id); }

TokenizedText EncDecFolderModel::tokenizeSource(const std::string& text) const {
  return folder_->source->encode(text, true);
}

TokenizedText EncDecFolderModel::tokenizeTarget(const std::string& text, const std::vector<int>& pending) const {
  TokenizedText t = decoderInputOf(model().config(), *folder_->target, text);
  int u16 = 0;  // the text's length in UTF-16 units: the pending tokens' (empty) spans sit at its end
  for (std::size_t at = 0; at < text.size();) {
    const utf8::CodePoint cp = utf8::decode(text, at);
    u16 += utf8::utf16Units(cp.value);
    at += std::max<std::size_t>(1, cp.size);
  }
  const int vocab = folder_->target->vocabSize();
  for (int id : pending) {
    if (id < 0 || id >= vocab)
      throw InputError("target_pending: id " + std::to_string(id) + " is outside the target vocabulary (" +
                       std::to_string(vocab) + " ids)");
    Token tok;
    tok.text = folder_->target->pieceOf(id);
    tok.byteBegin = tok.byteEnd = static_cast<int>(text.size());
    tok.u16Begin = tok.u16End = u16;
    t.tokens.push_back(tok);
    t.ids.push_back(id);
  }
  return t;
}

EncDecTrace EncDecFolderModel::forwardTexts(const TokenizedText& source, const TokenizedText& target,
                                            const EncDecReuse& reuse, const EncDecAblation& ablation,
                                            const RunControl&) const {
  EncDecTrace t = model().forward(source.ids, target.ids, reuse, true, ablation);
  // The traces name their tokens by id; the views label them with the vocabulary's pieces.
  for (std::size_t i = 0; i < t.encoder.tokens.size() && i < source.ids.size(); ++i)
    t.encoder.tokens[i] = sourceTokenizer().pieceOf(source.ids[i]);
  for (std::size_t i = 0; i < t.decoder.tokens.size() && i < target.ids.size(); ++i)
    t.decoder.tokens[i] = targetTokenizer().pieceOf(target.ids[i]);
  return t;
}

std::vector<int> decoderInputIds(const EncDecConfig& c, std::vector<int> labels) {
  if (!labels.empty() && labels.back() == c.eosId) labels.pop_back();
  labels.insert(labels.begin(), c.decoderStartId);
  return labels;
}

TokenizedText decoderInputOf(const EncDecConfig& c, const TextTokenizer& target, const std::string& text) {
  TokenizedText t;
  // The labels. A blank text is the template alone (BART's [<s>, </s>] → input [start, <s>], the state BART's forced
  // <s> leads to; Marian's and T5's [</s>] → the start token alone); a tokenizer refusing "" adds nothing.
  try {
    t = target.encode(blank(text) ? std::string() : text, true);
  } catch (const InputError&) {
    if (!blank(text)) throw;
  }
  const std::vector<int> ids = decoderInputIds(c, t.ids);
  t.tokens.resize(ids.size() - 1);  // the labels' tokens without the dropped eos (one per id)
  Token first;
  first.text = target.pieceOf(c.decoderStartId);
  t.tokens.insert(t.tokens.begin(), first);
  t.ids = ids;
  return t;
}

std::string EncDecFolderModel::appendPiece(const std::string& target, int id) const {
  if (stackModel(true)->isReservedToken(id) ||
      std::find(targetSpecials_.begin(), targetSpecials_.end(), id) != targetSpecials_.end())
    return target;
  std::string piece = folder_->target->pieceOf(id);
  std::string out;
  if (byteLevel_) {
    // The piece's bytes, unchecked: a character split over two pieces is whole once both are appended.
    out = tokenBytes(piece, TokenDisplayStyle::ByteLevel);
    if (blank(target)) out.erase(0, std::min(out.size(), out.find_first_not_of(' ')));
    return target + out;
  }
  if (wordPieces_) piece = piece.rfind("##", 0) == 0 ? piece.substr(2) : kMetaspace + piece;
  for (std::size_t i = 0; i < piece.size();) {
    if (piece.compare(i, 3, kMetaspace) == 0) {
      out += ' ';
      i += 3;
    } else {
      out += piece[i++];
    }
  }
  if (blank(target)) out.erase(0, std::min(out.size(), out.find_first_not_of(' ')));
  return target + out;
}

TargetText EncDecFolderModel::appendGenerated(const TargetText& target, int id) const {
  std::string all = target.text;
  for (int p : target.pending) all = appendPiece(all, p);
  all = appendPiece(all, id);
  if (utf8::isValid(all)) return TargetText(std::move(all));
  TargetText out = target;
  out.pending.push_back(id);
  return out;
}

TargetText EncDecFolderModel::decodeGenerated(const std::vector<int>& ids) const {
  TargetText t;
  for (int id : ids) t = appendGenerated(t, id);
  return t;
}

std::string EncDecFolderModel::pendingBytes(const std::vector<int>& pending) const {
  std::string bytes = "x";  // not blank: appendPiece keeps a pending piece's leading space
  for (int id : pending) bytes = appendPiece(bytes, id);
  return bytes.substr(1);
}

std::string EncDecFolderModel::decodeTarget(const std::vector<int>& ids) const {
  std::string text;
  for (int id : ids) text = appendPiece(text, id);
  return byteLevel_ ? utf8::lossy(text) : text;  // Hugging Face's lossy decode: one U+FFFD a cut
}

std::shared_ptr<const Model> EncDecFolderModel::stackModel(bool decoder) const {
  return std::make_shared<EncDecStackModel>(folder_, name_, decoder);
}

std::shared_ptr<const EncDecFolderModel> openEncDecModel(const std::string& dir, const RunControl& control,
                                                         const std::string& givenName) {
  control.checkpoint(0.0);
  std::string name = givenName;
  if (name.empty()) {
    name = dir;
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    name = name.substr(name.find_last_of('/') + 1);
  }
  auto m = std::make_shared<const EncDecFolderModel>(openEncDecFolder(dir), name);
  control.checkpoint(1.0);
  return m;
}

bool isEncDecFolder(const std::string& dir) {
  const std::string path = dir + "/config.json";
  if (!fileExists(path)) return false;
  try {
    const nlohmann::json j = readJsonFile(path);
    return j.is_object() && j.contains("model_type") && j["model_type"].is_string() &&
           isEncoderDecoderType(j["model_type"].get<std::string>());
  } catch (const std::exception&) {
    return false;  // the ordinary opener reports the broken file
  }
}

int EncDecRun::nextTokenId() const {
  if (!trace || trace->logits.rows() == 0) return -1;
  Vec last = trace->logits.row(trace->logits.rows() - 1).transpose();
  // The folder's generation rules, as Translate applies them: one Next token = one Translate step.
  if (const EncDecFolderModel* folder = model ? model->folder() : nullptr) {
    const EncDecConfig& c = folder->model().config();
    applyGenerationRules(c.generation, target.ids, c.eosId, generationLengthLimit(c.generation, c.maxPositions, 0),
                         last);
  }
  Eigen::Index best = 0;
  last.maxCoeff(&best);
  return static_cast<int>(best);
}

std::shared_ptr<const Model> wholeModel(const PipelineResult& r) {
  if (r.encdec && r.encdec->model) return r.encdec->model;
  return r.model;
}

TokenizedText checkedSource(const TwoTextModel& m, const std::string& source) {
  checkText(source, "source");
  if (blank(source))
    throw InputError(m.hasOutputHead() ? "the source text is empty: type the sentence to translate"
                                       : "the source text is empty: type a source sentence");
  TokenizedText src = m.tokenizeSource(source);
  checkLength(src, m.maxPositions(), "source");
  return src;
}

namespace {

/// Whether two runs' interventions change a forward pass alike (every field that changes the numbers).
bool sameIntervention(const Intervention& a, const Intervention& b) {
  return a.ablate == b.ablate && a.mode == b.mode && a.resample == b.resample && a.source == b.source &&
         a.patchHeads == b.patchHeads && a.patchPosition == b.patchPosition && a.residualLayer == b.residualLayer &&
         a.residualPosition == b.residualPosition && a.hooks == b.hooks;
}

}  // namespace

EncDecAblation encDecAblationOf(const PredictionSettings& s) {
  EncDecAblation a;
  a.encoder.ablate = s.ablateEncoder;
  a.decoder.ablate = s.ablate;
  a.cross.ablate = s.ablateCross;
  a.encoder.mode = a.decoder.mode = a.cross.mode = s.ablationMode;  // resample: refused by forward
  return a;
}

EncDecReuse encDecReuse(const PipelineResult* previous, const EncDecFolderModel& model, const TokenizedText& source,
                        const TokenizedText& target, const EncDecAblation& ablation) {
  EncDecReuse r;
  const EncDecRun* run = previous ? previous->encdec.get() : nullptr;
  if (!run || !run->isDecoderSide() || !run->trace || run->model.get() != &model) return r;
  const PipelineResult& enc = *run->encoderSide;
  if (run->source.ids != source.ids || !sameIntervention(run->ablation.encoder, ablation.encoder) ||
      enc.trace.layers.empty())
    return r;
  r.encoder = &enc.trace;
  r.encoderOut = &run->trace->encoderOut;
  r.cross = &run->trace->cross;
  if (!sameIntervention(run->ablation.decoder, ablation.decoder) ||
      !sameIntervention(run->ablation.cross, ablation.cross))
    return r;  // the encoder alone: the decoder's rows were made with other heads switched off
  r.decoder = &previous->trace;
  r.decoderOut = &run->trace->decoderOut;
  r.logits = &run->trace->logits;
  const std::size_t limit = std::min(run->target.ids.size(), target.ids.size() - 1);
  std::size_t rows = 0;
  while (rows < limit && run->target.ids[rows] == target.ids[rows]) ++rows;
  // The decoder Trace's rows must be there to take (a trace cut by keep-last would not be).
  if (previous->trace.tokenIds.size() < rows) rows = 0;
  r.decoderRows = static_cast<int>(rows);
  return r;
}

PipelineResult runEncDecPipeline(const Params& p, std::shared_ptr<const TwoTextModel> model, const RunControl& control,
                                 std::shared_ptr<const PipelineResult> previous) {
  TokenizedText src = checkedSource(*model, p.sentence);
  checkText(p.target, "target");
  // The built-in rung has no output head: an empty target is nothing to read and it cannot write one.
  if (!model->hasOutputHead() && blank(p.target))
    throw InputError(std::string("the target text is empty: ") + kBuiltinEmptyTarget);
  // A folder's target may end in generated byte pieces that wait for the rest of their character (TargetText).
  const EncDecFolderModel* folder = model->folder();
  TokenizedText tgt = folder ? folder->tokenizeTarget(p.target, p.targetPending) : model->tokenizeTarget(p.target);
  checkLength(tgt, model->maxPositions(),
              model->hasOutputHead() ? "target (with the decoder's start token)" : "target");
  control.checkpoint(0.0);

  PipelineResult r;
  auto enc = std::make_shared<PipelineResult>();
  const EncDecAblation ablation = encDecAblationOf(p.prediction);
  // Reuse of an earlier run is the folder's (EncDecModel's cached stacks); the built-in rung runs whole.
  const EncDecReuse reuse = folder ? encDecReuse(previous.get(), *folder, src, tgt, ablation) : EncDecReuse{};
  auto trace = std::make_shared<EncDecTrace>(model->forwardTexts(src, tgt, reuse, ablation, control));
  enc->model = model->stackModel(false);
  enc->info = enc->model->info();
  enc->text = src;
  enc->trace = std::move(trace->encoder);
  trace->encoder = Trace{};
  r.model = model->stackModel(true);
  r.info = r.model->info();
  r.text = tgt;
  r.trace = std::move(trace->decoder);
  trace->decoder = Trace{};

  auto encRun = std::make_shared<EncDecRun>();
  encRun->model = model;
  encRun->source = std::move(src);
  encRun->target = std::move(tgt);
  encRun->trace = std::move(trace);
  encRun->ablation = ablation;
  auto decRun = std::make_shared<EncDecRun>(*encRun);
  decRun->encoderSide = enc;
  enc->encdec = std::move(encRun);
  r.encdec = std::move(decRun);
  return r;
}

Translation translateGreedy(const EncDecFolderModel& model, const std::string& source, int maxNewTokens,
                            const EncDecAblation& ablation) {
  const TokenizedText src = checkedSource(model, source);
  const int limit = model.maxPositions();
  const int budget = limit > 0 ? std::min(maxNewTokens, limit - 1) : maxNewTokens;
  Translation t;
  if (ablation.empty()) {
    t.ids = model.model().generateGreedy(src.ids, budget);
  } else if (budget > 0) {
    for (const GeneratedToken& g : generateTarget(model, source, "", budget, {}, {}, {}, ablation).tokens)
      t.ids.push_back(g.id);
  }
  t.text = model.decodeTarget(t.ids);
  return t;
}

}  // namespace attnlab
