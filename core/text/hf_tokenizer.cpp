#include "core/text/hf_tokenizer.h"

#include <cctype>

#include "core/base/errors.h"
#include "core/text/text_offsets.h"
#include "core/text/unicode_norm.h"
#include "core/text/unicode_props.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

bool isWordByte(std::string_view text, std::size_t pos) {
  const unsigned char c = static_cast<unsigned char>(text[pos]);
  return c >= 0x80 || std::isalnum(c) || c == '_';
}

}  // namespace

std::unique_ptr<HfTokenizer> HfTokenizer::fromJson(const nlohmann::json& j, const nlohmann::json& config,
                                                   const std::string& file) try {
  if (!j.is_object()) throw InputError(file + ": not a JSON object");
  std::unique_ptr<HfTokenizer> t(new HfTokenizer());
  t->model_ = makeTokenModel(j.value("model", nlohmann::json()), file);
  t->normalizer_ = makeNormalizer(j.value("normalizer", nlohmann::json()), file);
  t->preTokenizer_ = makePreTokenizer(j.value("pre_tokenizer", nlohmann::json()), file);
  t->idToToken_ = t->model_->vocab.tokens;
  // Byte-level files name ByteLevel in their pre-tokenizer or decoder.
  for (const char* key : {"pre_tokenizer", "decoder"})
    if (j.contains(key) && j[key].dump().find("\"ByteLevel\"") != std::string::npos)
      t->displayStyle_ = TokenDisplayStyle::ByteLevel;
  t->readAddedTokens(j.value("added_tokens", nlohmann::json::array()), file);
  t->readPostProcessor(j.value("post_processor", nlohmann::json()), file);
  if (t->template_.prefix.empty() && t->template_.suffix.empty() && config.is_object()) t->applyConfig(config);
  return t;
} catch (const nlohmann::json::exception& e) {
  // A missing required field or a field of the wrong type in otherwise well-formed JSON.
  throw InputError(file + ": unexpected content (" + e.what() + ")");
}

/// The id Hugging Face gives an added token when it loads the file (the file's "id" is only checked
/// there): the id it already has, else the next id after the vocabulary and the earlier added tokens.
int HfTokenizer::addedId(const std::string& content) const {
  if (const int id = tokenToId(content); id >= 0) return id;
  const int modelSize = static_cast<int>(model_->vocab.ids.size());
  if (maxAddedId_ < 0) return modelSize;
  return maxAddedId_ >= modelSize || modelSize == 0 ? maxAddedId_ + 1 : modelSize;
}

void HfTokenizer::readAddedTokens(const nlohmann::json& list, const std::string& file) {
  if (!list.is_array()) throw InputError(file + ": added_tokens is not a list");
  added_.reserve(list.size());
  for (const nlohmann::json& a : list) {
    const nlohmann::json& id = a.at("id");
    if (!validId(id)) throw InputError(file + ": added token with an invalid id " + id.dump());
    Added t;
    t.content = a.at("content").get<std::string>();
    t.id = addedId(t.content);
    t.special = a.value("special", false);
    t.lstrip = a.value("lstrip", false);
    t.rstrip = a.value("rstrip", false);
    t.singleWord = a.value("single_word", false);
    t.normalized = a.value("normalized", !t.special);
    if (t.content.empty()) continue;
    addedIds_[t.content] = t.id;
    maxAddedId_ = std::max(maxAddedId_, t.id);
    if (t.normalized) {
      NormalizedText n = NormalizedText::fromOriginal(t.content, 0, t.content.size());
      if (normalizer_) normalizer_(n);
      t.normalizedContent = n.chars;
    }
    added_.push_back(std::move(t));
  }
  addedByFirstByte_.assign(256, {});
  for (const Added& a : added_) {
    if (a.id >= static_cast<int>(idToToken_.size())) idToToken_.resize(static_cast<std::size_t>(a.id) + 1);
    idToToken_[static_cast<std::size_t>(a.id)] = a.content;
    if (!a.normalized)
      addedByFirstByte_[static_cast<unsigned char>(a.content[0])].push_back(&a);
    else if (!a.normalizedContent.empty())
      normalizedByFirstChar_[a.normalizedContent[0]].push_back(&a);
  }
}

void HfTokenizer::readPostProcessor(const nlohmann::json& pp, const std::string& file) {
  if (pp.is_null()) return;
  const std::string type = pp.is_object() ? pp.value("type", std::string()) : std::string();
  if (type == "Sequence") {
    const nlohmann::json list = pp.value("processors", nlohmann::json());
    if (!list.is_array()) throw InputError(file + ": post_processor Sequence has no \"processors\" list");
    for (const nlohmann::json& p : list) readPostProcessor(p, file);
    return;
  }
  if (type == "ByteLevel" || type == "RobertaProcessing") {
    trimOffsets_ = pp.value("trim_offsets", true);
    trimPrefixSpace_ = pp.value("add_prefix_space", true);
    if (type == "ByteLevel") return;
  } else if (type != "TemplateProcessing" && type != "BertProcessing") {
    throw InputError(file + ": post_processor type \"" + type + "\" is not supported");
  }
  SpecialTemplate t = parsePostProcessor(pp, file, [this](const std::string& s) { return tokenToId(s); });
  if (!t.prefix.empty() || !t.suffix.empty()) template_ = std::move(t);
}

void HfTokenizer::applyConfig(const nlohmann::json& config) {
  auto idOf = [&](const char* key) { return config.contains(key) ? tokenToId(specialTokenContent(config[key])) : -1; };
  auto flag = [&](const char* key) {
    return config.contains(key) && config[key].is_boolean() && config[key].get<bool>();
  };
  if (const int bos = idOf("bos_token"); flag("add_bos_token") && bos >= 0) template_.prefix = {bos};
  if (const int eos = idOf("eos_token"); flag("add_eos_token") && eos >= 0) template_.suffix = {eos};
}

int HfTokenizer::tokenToId(const std::string& token) const {
  const auto it = addedIds_.find(token);
  return it != addedIds_.end() ? it->second : model_->vocab.lookup(token);
}

const std::string& HfTokenizer::idToToken(int id) const {
  static const std::string kEmpty;
  return id >= 0 && id < static_cast<int>(idToToken_.size()) ? idToToken_[static_cast<std::size_t>(id)] : kEmpty;
}

std::vector<int> HfTokenizer::specialIds() const {
  std::vector<int> out;
  for (const Added& a : added_)
    if (a.special) out.push_back(a.id);
  return out;
}

/// Added tokens matched verbatim in the original text, leftmost first and longest at a position (the
/// Aho-Corasick LeftmostLongest search of Hugging Face's AddedVocabulary); lstrip / rstrip swallow the
/// whitespace beside the token, single_word needs a word boundary on both sides.
std::vector<HfTokenizer::Segment> HfTokenizer::splitOnAdded(std::string_view text) const {
  std::vector<Segment> out;
  std::size_t plain = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const Added* best = nullptr;
    for (const Added* a : addedByFirstByte_[static_cast<unsigned char>(text[pos])])
      if (text.compare(pos, a->content.size(), a->content) == 0 && (!best || a->content.size() > best->content.size()))
        best = a;
    std::size_t b = pos, e = best ? pos + best->content.size() : pos;
    if (best && best->singleWord && ((b > 0 && isWordByte(text, b - 1)) || (e < text.size() && isWordByte(text, e))))
      best = nullptr;
    if (!best) {
      ++pos;
      continue;
    }
    while (best->lstrip && b > plain && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
    while (best->rstrip && e < text.size() && std::isspace(static_cast<unsigned char>(text[e]))) ++e;
    if (b > plain) out.push_back({plain, b, nullptr});
    out.push_back({b, e, best});
    pos = plain = e;
  }
  if (text.size() > plain) out.push_back({plain, text.size(), nullptr});
  return out;
}

void HfTokenizer::encodePlain(std::string_view text, std::size_t begin, std::size_t end,
                              std::vector<Piece>& out) const {
  NormalizedText t = NormalizedText::fromOriginal(text, begin, end);
  if (normalizer_) normalizer_(t);
  // Added tokens with normalized = true are matched in the normalized text.
  std::size_t plain = 0;
  for (std::size_t pos = 0; pos < t.chars.size();) {
    const Added* best = nullptr;
    const auto bucket = normalizedByFirstChar_.find(t.chars[pos]);
    if (bucket != normalizedByFirstChar_.end())
      for (const Added* a : bucket->second)
        if (t.chars.compare(pos, a->normalizedContent.size(), a->normalizedContent) == 0 &&
            (!best || a->normalizedContent.size() > best->normalizedContent.size()))
          best = a;
    if (!best) {
      ++pos;
      continue;
    }
    if (pos > plain) encodeNormalizedPiece(t.slice(plain, pos), out);
    std::string matched;  // the token's text is the normalized text it matched, as in Hugging Face
    for (std::size_t k = pos; k < pos + best->normalizedContent.size(); ++k) utf8::append(matched, t.chars[k]);
    out.push_back({best->id, t.span(pos, pos + best->normalizedContent.size()), matched});
    pos = plain = pos + best->normalizedContent.size();
  }
  if (t.chars.size() > plain) encodeNormalizedPiece(plain == 0 ? t : t.slice(plain, t.chars.size()), out);
}

void HfTokenizer::encodeNormalizedPiece(const NormalizedText& piece, std::vector<Piece>& out) const {
  std::vector<NormalizedText> pieces{piece};
  if (preTokenizer_) preTokenizer_(pieces);
  std::vector<ModelToken> tokens;
  for (const NormalizedText& p : pieces) {
    tokens.clear();
    model_->tokenize(p.chars, tokens);
    for (const ModelToken& m : tokens) out.push_back({m.id, p.span(m.begin, m.end), idToToken(m.id)});
  }
}

/// ByteLevel's trim_offsets: spans lose the spaces a token starts or ends with (on the original bytes).
void HfTokenizer::trimOffsets(std::vector<Piece>& tokens) const {
  auto isSpace = [](char32_t c) { return c == U'\u0120' || unicode::isWhitespace(c); };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::u32string s = toU32(tokens[i].text);
    std::size_t lead = 0, trail = 0;
    while (lead < s.size() && isSpace(s[lead])) ++lead;
    while (trail < s.size() && isSpace(s[s.size() - 1 - trail])) ++trail;
    ByteSpan& span = tokens[i].span;
    if (lead > 0) {
      if ((i == 0 || span.begin == 0) && trimPrefixSpace_ && lead == 1) lead = 0;
      span.begin = std::min(span.begin + static_cast<int>(lead), span.end);
    }
    if (trail > 0 && span.end >= static_cast<int>(trail))
      span.end = std::max(span.end - static_cast<int>(trail), span.begin);
  }
}

TokenizedText HfTokenizer::encode(std::string_view text, bool addSpecial) const {
  std::vector<Piece> tokens;
  for (const Segment& seg : splitOnAdded(text)) {
    // An added token's text is what it matched, stripped whitespace included (as in Hugging Face).
    if (seg.added)
      tokens.push_back({seg.added->id, ByteSpan{static_cast<int>(seg.begin), static_cast<int>(seg.end)},
                        std::string(text.substr(seg.begin, seg.end - seg.begin))});
    else
      encodePlain(text, seg.begin, seg.end, tokens);
  }
  if (trimOffsets_) trimOffsets(tokens);
  const Utf16Offsets offsets(text);
  TokenizedText out;
  for (Piece& p : tokens) {
    out.tokens.push_back(
        offsets.token(std::move(p.text), static_cast<std::size_t>(p.span.begin), static_cast<std::size_t>(p.span.end)));
    out.ids.push_back(p.id);
  }
  if (addSpecial) wrapWithSpecial(out, template_, idToToken_, text);
  return out;
}

}  // namespace attnlab
