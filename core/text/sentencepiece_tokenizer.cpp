#include "core/text/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/marian_language_codes.h"
#include "core/text/text_offsets.h"

namespace attnlab {

struct SentencePieceTokenizer::Impl {
  sentencepiece::SentencePieceProcessor sp;
  Options options;
  std::vector<std::string> idToPiece;  ///< Marian: vocab.json inverted
  int unkId = -1;
};

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::fromFile(const std::string& path, Options options) {
  auto impl = std::make_unique<Impl>();
  const std::string bytes = readTextFile(path);
  const auto status = impl->sp.LoadFromSerializedProto(bytes);
  if (!status.ok()) throw InputError(path + ": not a SentencePiece model (" + status.ToString() + ")");
  impl->options = std::move(options);
  const auto& vocab = impl->options.vocab;
  if (vocab.empty()) {
    impl->unkId = impl->sp.unk_id();
  } else {
    const auto unk = vocab.find("<unk>");
    impl->unkId = unk == vocab.end() ? -1 : unk->second;
    for (const auto& [piece, id] : vocab) {
      if (id >= static_cast<int>(impl->idToPiece.size())) impl->idToPiece.resize(static_cast<std::size_t>(id) + 1);
      impl->idToPiece[static_cast<std::size_t>(id)] = piece;
    }
  }
  return std::unique_ptr<SentencePieceTokenizer>(new SentencePieceTokenizer(std::move(impl)));
}

std::vector<std::pair<std::string, bool>> SentencePieceTokenizer::modelPieces() const {
  std::vector<std::pair<std::string, bool>> out;
  const auto& sp = impl_->sp;
  for (int i = 0; i < sp.GetPieceSize(); ++i)
    out.emplace_back(sp.IdToPiece(i), !(sp.IsControl(i) || sp.IsUnknown(i) || sp.IsUnused(i) || sp.IsByte(i)));
  return out;
}

int SentencePieceTokenizer::modelPieceId(const std::string& piece) const {
  const int id = impl_->sp.PieceToId(piece);
  return id == impl_->sp.unk_id() && piece != impl_->sp.IdToPiece(id) ? -1 : id;
}

int SentencePieceTokenizer::vocabSize() const {
  const int own = impl_->options.vocab.empty() ? impl_->sp.GetPieceSize() : static_cast<int>(impl_->idToPiece.size());
  int n = std::max(own, impl_->options.vocabSize);
  for (const AddedToken& a : impl_->options.added) n = std::max(n, a.id + 1);
  return n;
}

std::string SentencePieceTokenizer::pieceOf(int id) const {
  for (const AddedToken& a : impl_->options.added)
    if (a.id == id) return a.content;
  if (!impl_->options.vocab.empty())
    return id >= 0 && id < static_cast<int>(impl_->idToPiece.size()) ? impl_->idToPiece[static_cast<std::size_t>(id)]
                                                                     : std::string();
  return id >= 0 && id < impl_->sp.GetPieceSize() ? impl_->sp.IdToPiece(id) : std::string();
}

int SentencePieceTokenizer::idOf(const std::string& piece) const {
  for (const AddedToken& a : impl_->options.added)
    if (a.content == piece) return a.id;
  if (!impl_->options.vocab.empty()) {
    const auto it = impl_->options.vocab.find(piece);
    return it == impl_->options.vocab.end() ? -1 : it->second;
  }
  return modelPieceId(piece);
}

void SentencePieceTokenizer::encodePlain(std::string_view text, std::size_t begin, std::size_t end,
                                         const Utf16Offsets& offsets, TokenizedText& out) const {
  // Marian: the language codes are cut out; `kept` maps the remaining text's bytes back to the original.
  std::string rest;
  std::vector<std::size_t> kept;
  std::size_t pos = begin;
  const auto codes = impl_->options.languageCodes ? marianLanguageCodes(text, begin, end)
                                                  : std::vector<std::pair<std::size_t, std::size_t>>();
  if (!codes.empty() && codes[0].first == begin) {
    const std::string code(text.substr(codes[0].first, codes[0].second - codes[0].first));
    const int id = idOf(code);
    out.tokens.push_back(offsets.token(code, codes[0].first, codes[0].second));
    out.ids.push_back(id >= 0 ? id : impl_->unkId);
  }
  for (const auto& [b, e] : codes) {
    for (; pos < b; ++pos) kept.push_back(pos);
    pos = e;
  }
  for (; pos < end; ++pos) kept.push_back(pos);
  kept.push_back(end);
  for (std::size_t k = 0; k + 1 < kept.size(); ++k) rest += text[kept[k]];

  sentencepiece::ImmutableSentencePieceText spt;
  try {
    spt = impl_->sp.EncodeAsImmutableProto(rest);
  } catch (const sentencepiece::util::Status& s) {
    throw InputError("SentencePiece could not encode the text (" + s.ToString() + ")");
  }
  const bool mapped = !impl_->options.vocab.empty();
  for (const auto& p : spt.pieces()) {
    // A cut-out code inside a piece: the span runs from the piece's first kept byte to its last.
    const std::size_t b = kept[p.begin()], e = p.end() > p.begin() ? kept[p.end() - 1] + 1 : b;
    int id = static_cast<int>(p.id());
    std::string shown = impl_->sp.IdToPiece(id);
    if (mapped) {
      // Marian maps the piece's string (an unknown piece's string is its text) through vocab.json.
      const auto it = impl_->options.vocab.find(p.piece());
      id = it == impl_->options.vocab.end() ? impl_->unkId : it->second;
      shown = pieceOf(id);
    }
    out.tokens.push_back(offsets.token(shown, b, e));
    out.ids.push_back(id);
  }
}

TokenizedText SentencePieceTokenizer::encode(std::string_view text, bool addSpecial) const {
  TokenizedText out;
  const Utf16Offsets offsets(text);
  for (const TextSegment& seg : splitOnAddedTokens(text, impl_->options.added)) {
    if (seg.addedId >= 0) {
      out.tokens.push_back(offsets.token(std::string(text.substr(seg.begin, seg.end - seg.begin)), seg.begin, seg.end));
      out.ids.push_back(seg.addedId);
    } else {
      encodePlain(text, seg.begin, seg.end, offsets, out);
    }
  }
  const int eos = impl_->options.eosId;
  // T5Tokenizer does not add a second </s> after one typed at the end; MarianTokenizer always adds it.
  const bool already = !impl_->options.languageCodes && !out.ids.empty() && out.ids.back() == eos;
  if (addSpecial && eos >= 0 && !already) {
    out.tokens.push_back(offsets.token(pieceOf(eos), text.size(), text.size()));
    out.ids.push_back(eos);
  }
  return out;
}

namespace {

nlohmann::json readConfig(const std::string& dir) {
  const std::string path = dir + "/tokenizer_config.json";
  if (!fileExists(path)) return nlohmann::json::object();
  nlohmann::json j = readJsonFile(path);
  if (!j.is_object()) throw InputError(path + ": not a JSON object");
  return j;
}

std::unordered_map<std::string, int> readVocabJson(const std::string& path) {
  const nlohmann::json j = readJsonFile(path);
  if (!j.is_object()) throw InputError(path + ": not an object of piece → id");
  std::unordered_map<std::string, int> vocab;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<long long>() < 0 || it.value().get<long long>() > 10'000'000)
      throw InputError(path + ": piece \"" + it.key() + "\" has an invalid id " + it.value().dump());
    vocab[it.key()] = it.value().get<int>();
  }
  return vocab;
}

/// Every normal piece of the model must have an id in the vocabulary, or the model's ids would silently
/// turn into <unk>: vocabularies that disagree are refused.
void checkPieces(const SentencePieceTokenizer& model, const std::string& modelPath,
                 const std::unordered_map<std::string, int>& vocab, const std::string& vocabPath) {
  int missing = 0;
  std::string first;
  for (const auto& [piece, normal] : model.modelPieces())
    if (normal && !vocab.count(piece) && missing++ == 0) first = piece;
  if (missing > 0)
    throw InputError(vocabPath + ": the vocabularies disagree: " + std::to_string(missing) + " piece(s) of " +
                     modelPath + " are not in it (the first: \"" + first + "\")");
}

}  // namespace

namespace {

/// Marian's options for one side: its vocabulary, the special tokens' ids in it, language codes, </s>.
SentencePieceTokenizer::Options marianOptions(const nlohmann::json& cfg, std::unordered_map<std::string, int> vocab,
                                              const std::string& vocabPath) {
  SentencePieceTokenizer::Options o;
  o.vocab = std::move(vocab);
  for (const char* key : {"unk_token", "eos_token", "pad_token"}) {
    const std::string token = cfg.contains(key) ? specialTokenContent(cfg[key]) : std::string();
    const std::string name = !token.empty()                    ? token
                             : std::string(key) == "unk_token" ? "<unk>"
                             : std::string(key) == "eos_token" ? "</s>"
                                                               : "<pad>";
    const auto it = o.vocab.find(name);
    if (it == o.vocab.end()) throw InputError(vocabPath + ": has no id for the special token \"" + name + "\"");
    o.added.push_back({name, it->second});
    if (std::string(key) == "eos_token") o.eosId = it->second;
  }
  o.languageCodes = true;
  return o;
}

/// tokenizer_config.json's separate_vocabs (false when absent): refused by name when not a boolean.
bool separateVocabs(const nlohmann::json& cfg, const std::string& dir) {
  if (!cfg.contains("separate_vocabs")) return false;
  const nlohmann::json& v = cfg["separate_vocabs"];
  if (!v.is_boolean())
    throw InputError(dir + "/tokenizer_config.json: \"separate_vocabs\" must be true or false, not " + v.dump());
  return v.get<bool>();
}

}  // namespace

MarianTokenizers loadMarianTokenizers(const std::string& dir) {
  std::string missing;
  for (const char* f : {"source.spm", "target.spm", "vocab.json"})
    if (!fileExists(dir + "/" + f)) missing += std::string(missing.empty() ? "" : ", ") + f;
  if (!missing.empty())
    throw InputError(dir + ": a Marian tokenizer needs source.spm, target.spm and vocab.json; missing: " + missing);
  const nlohmann::json cfg = readConfig(dir);
  const std::string vocabPath = dir + "/vocab.json";
  // With separate vocabularies (separate_vocabs) the target side maps through target_vocab.json.
  const std::string targetVocabPath =
      separateVocabs(cfg, dir) && fileExists(dir + "/target_vocab.json") ? dir + "/target_vocab.json" : vocabPath;
  // Each file is read once; both models are checked: a folder whose vocabularies disagree is refused as a whole.
  std::unordered_map<std::string, int> vocab = readVocabJson(vocabPath);
  std::unordered_map<std::string, int> targetVocab =
      targetVocabPath == vocabPath ? vocab : readVocabJson(targetVocabPath);
  MarianTokenizers t;
  const SentencePieceTokenizer::Options so = marianOptions(cfg, std::move(vocab), vocabPath);
  t.source = SentencePieceTokenizer::fromFile(dir + "/source.spm", so);
  checkPieces(*t.source, dir + "/source.spm", so.vocab, vocabPath);
  const SentencePieceTokenizer::Options to = marianOptions(cfg, std::move(targetVocab), targetVocabPath);
  t.target = SentencePieceTokenizer::fromFile(dir + "/target.spm", to);
  checkPieces(*t.target, dir + "/target.spm", to.vocab, targetVocabPath);
  return t;
}

std::unique_ptr<SentencePieceTokenizer> loadMarianTokenizer(const std::string& dir, MarianSide side) {
  MarianTokenizers t = loadMarianTokenizers(dir);
  return side == MarianSide::Source ? std::move(t.source) : std::move(t.target);
}

std::unique_ptr<SentencePieceTokenizer> loadT5SentencePiece(const std::string& dir) {
  const std::string path = dir + "/spiece.model";
  const nlohmann::json cfg = readConfig(dir);
  auto probe = SentencePieceTokenizer::fromFile(path, {});
  const int pieces = static_cast<int>(probe->modelPieces().size());
  SentencePieceTokenizer::Options o;
  const nlohmann::json extra = cfg.value("extra_ids", nlohmann::json(100));
  if (!extra.is_number_integer() || extra.get<long long>() < 0 || extra.get<long long>() > 10000)
    throw InputError(dir + "/tokenizer_config.json: extra_ids must be a count, not " + extra.dump());
  const int extraIds = extra.get<int>();
  // T5Tokenizer: <extra_id_i> is the (pieces − 1 + extra_ids − i)-th id.
  for (int i = 0; i < extraIds; ++i)
    o.added.push_back({"<extra_id_" + std::to_string(i) + ">", pieces - 1 + extraIds - i});
  for (const char* s : {"</s>", "<unk>", "<pad>"})
    if (const int id = probe->modelPieceId(s); id >= 0) o.added.push_back({s, id});
  o.eosId = probe->modelPieceId("</s>");
  o.vocabSize = pieces + extraIds;
  return SentencePieceTokenizer::fromFile(path, o);
}

}  // namespace attnlab
