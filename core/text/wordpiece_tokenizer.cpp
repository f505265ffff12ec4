#include "core/text/wordpiece_tokenizer.h"

#include <cstdint>
#include <limits>

#include "core/base/errors.h"
#include "core/text/text_offsets.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

constexpr std::int64_t kMaxVocabId = 10'000'000;

std::string toUtf8(const std::vector<NormChar>& w, std::size_t b, std::size_t e) {
  std::string s;
  for (std::size_t i = b; i < e; ++i) utf8::append(s, w[i].c);
  return s;
}

}  // namespace

int WordPieceTokenizer::lookup(const std::string& s) const {
  const auto it = vocab_.find(s);
  return it == vocab_.end() ? -1 : it->second;
}

void WordPieceTokenizer::finish(const std::vector<AddedToken>& added, const std::string& name) {
  for (const AddedToken& a : added) {
    if (a.id < 0 || a.id > kMaxVocabId)
      throw InputError(name + ": added token \"" + a.content + "\" has an invalid id");
    if (a.id >= static_cast<int>(idToToken_.size())) idToToken_.resize(static_cast<std::size_t>(a.id) + 1);
    if (idToToken_[a.id].empty()) idToToken_[a.id] = a.content;
  }
  added_ = added;
  unkId_ = lookup(options_.unkToken);
  if (unkId_ < 0) throw InputError(name + ": unknown-token \"" + options_.unkToken + "\" is not in the vocabulary");
  if (options_.maxCharsPerWord < 1) throw InputError(name + ": max_input_chars_per_word must be positive");
}

WordPieceTokenizer WordPieceTokenizer::fromVocabTxt(const std::string& text, const std::string& name,
                                                    const WordPieceOptions& options) {
  WordPieceTokenizer t;
  t.options_ = options;
  std::size_t pos = 0;
  int id = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!utf8::isValid(line)) throw InputError(name + ": line " + std::to_string(id + 1) + ": invalid UTF-8");
    t.vocab_.emplace(line, id);  // the first line wins for a duplicate, as in BertTokenizer's load_vocab
    t.idToToken_.push_back(line);
    ++id;
  }
  std::vector<AddedToken> added;
  for (const std::string& s : options.specialTokens)
    if (int sid = t.lookup(s); sid >= 0) added.push_back({s, sid});
  t.finish(added, name);
  const int cls = t.lookup(options.clsToken), sep = t.lookup(options.sepToken);
  if (cls < 0 || sep < 0)
    throw InputError(name + ": \"" + options.clsToken + "\" or \"" + options.sepToken + "\" is not in the vocabulary");
  t.template_.prefix = t.template_.pairPrefix = {cls};
  t.template_.suffix = t.template_.pairMiddle = t.template_.pairSuffix = {sep};
  return t;
}

WordPieceTokenizer WordPieceTokenizer::fromTokenizerJson(const nlohmann::json& j, const std::string& name) try {
  const nlohmann::json& model = j.at("model");
  WordPieceTokenizer t;
  const nlohmann::json& vocab = model.at("vocab");
  if (!vocab.is_object()) throw InputError(name + ": model.vocab is not a JSON object of token → id");
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_unsigned() || it.value().get<std::uint64_t>() > std::uint64_t(kMaxVocabId))
      throw InputError(name + ": token \"" + it.key() + "\" has an invalid id " + it.value().dump());
    const int id = it.value().get<int>();
    t.vocab_[it.key()] = id;
    if (id >= static_cast<int>(t.idToToken_.size())) t.idToToken_.resize(static_cast<std::size_t>(id) + 1);
    t.idToToken_[id] = it.key();
  }
  t.options_.unkToken = model.value("unk_token", std::string("[UNK]"));
  t.options_.continuingPrefix = model.value("continuing_subword_prefix", std::string("##"));
  // Checked before conversion: a JSON number out of int's range (the fuzzer's 1099E+90) is undefined
  // behaviour in nlohmann's get<int>.
  const nlohmann::json maxChars = model.value("max_input_chars_per_word", nlohmann::json(100));
  if (!maxChars.is_number_integer() || maxChars.get<std::int64_t>() < 1 ||
      maxChars.get<std::int64_t>() > std::numeric_limits<int>::max())
    throw InputError(name + ": max_input_chars_per_word must be a positive integer, not " + maxChars.dump());
  t.options_.maxCharsPerWord = static_cast<int>(maxChars.get<std::int64_t>());
  const nlohmann::json norm = j.value("normalizer", nlohmann::json());
  if (norm.is_object() && norm.value("type", std::string()) == "BertNormalizer") {
    BertNormalizerOptions& o = t.options_.normalizer;
    o.cleanText = norm.value("clean_text", true);
    o.handleChineseChars = norm.value("handle_chinese_chars", true);
    o.lowercase = norm.value("lowercase", true);
    const nlohmann::json strip = norm.value("strip_accents", nlohmann::json());
    o.stripAccents = strip.is_boolean() ? strip.get<bool>() : o.lowercase;  // null: follow lowercase
  } else if (norm.is_null()) {
    t.options_.normalizer = {false, false, false, false};
  }
  std::vector<AddedToken> added;
  if (j.contains("added_tokens") && j["added_tokens"].is_array())
    for (const nlohmann::json& a : j["added_tokens"]) {
      const nlohmann::json& id = a.at("id");
      if (!id.is_number_unsigned() || id.get<std::uint64_t>() > std::uint64_t(kMaxVocabId))
        throw InputError(name + ": added token with an invalid id " + id.dump());
      added.push_back({a.at("content").get<std::string>(), id.get<int>()});
    }
  t.finish(added, name);
  t.template_ = parsePostProcessor(j.value("post_processor", nlohmann::json()), name,
                                   [&t](const std::string& s) { return t.lookup(s); });
  return t;
} catch (const nlohmann::json::exception& e) {
  // A missing required field or a field of the wrong type in otherwise well-formed JSON.
  throw InputError(name + ": unexpected content (" + e.what() + ")");
}

void WordPieceTokenizer::encodeWord(const std::vector<NormChar>& w, TokenizedText& out,
                                    const Utf16Offsets& offsets) const {
  const std::size_t n = w.size();
  if (n > static_cast<std::size_t>(options_.maxCharsPerWord)) {
    out.tokens.push_back(offsets.token(options_.unkToken, w.front().srcBegin, w.back().srcEnd));
    out.ids.push_back(unkId_);
    return;
  }
  TokenizedText pieces;
  for (std::size_t start = 0; start < n;) {
    int id = -1;
    std::size_t end = n;
    std::string piece;
    for (; end > start; --end) {  // longest match first
      piece = (start > 0 ? options_.continuingPrefix : std::string()) + toUtf8(w, start, end);
      if ((id = lookup(piece)) >= 0) break;
    }
    if (id < 0) {  // one uncoverable part makes the whole word unknown
      out.tokens.push_back(offsets.token(options_.unkToken, w.front().srcBegin, w.back().srcEnd));
      out.ids.push_back(unkId_);
      return;
    }
    // Characters from one source character (an expanded ligature) share its bytes.
    const std::size_t b = w[start].srcBegin, e = std::max(w[end - 1].srcEnd, b);
    pieces.tokens.push_back(offsets.token(piece, b, e));
    pieces.ids.push_back(id);
    start = end;
  }
  out.tokens.insert(out.tokens.end(), pieces.tokens.begin(), pieces.tokens.end());
  out.ids.insert(out.ids.end(), pieces.ids.begin(), pieces.ids.end());
}

TokenizedText WordPieceTokenizer::encodePlain(std::string_view text) const {
  const Utf16Offsets offsets(text);
  TokenizedText out;
  for (const TextSegment& seg : splitOnAddedTokens(text, added_)) {
    if (seg.addedId >= 0) {
      out.tokens.push_back(offsets.token(idToToken_.at(seg.addedId), seg.begin, seg.end));
      out.ids.push_back(seg.addedId);
      continue;
    }
    const auto words = bertWords(text.substr(seg.begin, seg.end - seg.begin), seg.begin, options_.normalizer);
    for (const auto& w : words) encodeWord(w, out, offsets);
  }
  return out;
}

TokenizedText WordPieceTokenizer::encode(std::string_view text, bool addSpecial) const {
  TokenizedText out = encodePlain(text);
  if (addSpecial) wrapWithSpecial(out, template_, idToToken_, text);
  return out;
}

TokenizedText WordPieceTokenizer::encodePair(std::string_view a, std::string_view b) const {
  const TokenizedText ta = encodePlain(a), tb = encodePlain(b);
  TokenizedText out;
  auto add = [&](const std::vector<int>& ids) {
    for (int id : ids) {
      const bool known = id >= 0 && id < static_cast<int>(idToToken_.size());
      out.tokens.push_back(Token{known ? idToToken_[id] : std::string(), 0, 0, 0, 0});
      out.ids.push_back(id);
    }
  };
  auto append = [&](const TokenizedText& t) {
    out.tokens.insert(out.tokens.end(), t.tokens.begin(), t.tokens.end());
    out.ids.insert(out.ids.end(), t.ids.begin(), t.ids.end());
  };
  add(template_.pairPrefix);
  append(ta);
  add(template_.pairMiddle);
  append(tb);
  add(template_.pairSuffix);
  return out;
}

}  // namespace attnlab
