#include "core/text/bpe_tokenizer.h"

#include <queue>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/gpt2_pretokenizer.h"
#include "core/text/text_offsets.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

// Ids beyond this are refused: a vocabulary this large is a damaged file, not a model.
constexpr std::int64_t kMaxVocabId = 10'000'000;

std::uint64_t pairKey(int a, int b) { return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b); }

/// One symbol of a word being merged: a doubly linked list over the word's bytes.
struct Symbol {
  int id;
  std::size_t begin, end;  ///< bytes of the piece
  int prev, next;          ///< neighbours, −1 at the ends
};

struct Candidate {
  int rank;
  std::size_t pos;  ///< left symbol's first byte: equal ranks merge leftmost first
  int left, leftId, rightId;
  bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

const std::vector<std::string>& byteStandIns() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    int extra = 0;
    for (int b = 0; b < 256; ++b) {
      // Printable Latin-1 bytes stand for themselves; the others are shifted to U+0100 upward in order.
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      utf8::append(t[b], printable ? char32_t(b) : char32_t(256 + extra++));
    }
    return t;
  }();
  return table;
}

void BpeTokenizer::setVocab(const nlohmann::json& vocab, const std::string& name) {
  if (!vocab.is_object()) throw InputError(name + ": the vocabulary is not a JSON object of token → id");
  std::int64_t maxId = -1;
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (!it.value().is_number_unsigned() || it.value().get<std::uint64_t>() > std::uint64_t(kMaxVocabId))
      throw InputError(name + ": token \"" + it.key() + "\" has an invalid id " + it.value().dump());
    const int id = it.value().get<int>();
    vocab_[it.key()] = id;
    maxId = std::max<std::int64_t>(maxId, id);
  }
  idToToken_.assign(static_cast<std::size_t>(maxId + 1), std::string());
  for (const auto& [token, id] : vocab_) idToToken_[id] = token;
  byteId_.assign(256, -1);
  for (int b = 0; b < 256; ++b) byteId_[b] = lookup(byteStandIns()[b]);
}

int BpeTokenizer::lookup(const std::string& s) const {
  const auto it = vocab_.find(s);
  return it == vocab_.end() ? -1 : it->second;
}

void BpeTokenizer::addMerge(const std::string& a, const std::string& b, const std::string& where) {
  const int ia = lookup(a), ib = lookup(b), merged = lookup(a + b);
  if (ia < 0 || ib < 0 || merged < 0)
    throw InputError(where + ": merge \"" + a + " " + b + "\" uses a token that is not in the vocabulary");
  // The first occurrence of a pair has the lowest rank and wins, as in Hugging Face's loader.
  merges_.emplace(pairKey(ia, ib), Merge{static_cast<int>(merges_.size()), merged});
}

void BpeTokenizer::setSpecial(const std::vector<AddedToken>& added, const std::string& unk, const std::string& name) {
  added_ = added;
  for (const AddedToken& a : added) {  // added tokens may lie beyond the model's vocabulary
    if (a.id < 0 || a.id > kMaxVocabId)
      throw InputError(name + ": added token \"" + a.content + "\" has an invalid id");
    if (a.id >= static_cast<int>(idToToken_.size())) idToToken_.resize(static_cast<std::size_t>(a.id) + 1);
    if (idToToken_[a.id].empty()) idToToken_[a.id] = a.content;
  }
  if (!unk.empty()) {
    unkId_ = lookup(unk);
    if (unkId_ < 0) throw InputError(name + ": unknown-token \"" + unk + "\" is not in the vocabulary");
  }
}

BpeTokenizer BpeTokenizer::fromFiles(const std::string& vocabJson, const std::string& vocabName,
                                     const std::string& merges, const std::string& mergesName,
                                     const BpeOptions& options) {
  BpeTokenizer t;
  t.setVocab(parseJson(vocabJson, vocabName), vocabName);
  std::size_t lineNo = 0, pos = 0;
  while (pos < merges.size()) {
    std::size_t eol = merges.find('\n', pos);
    if (eol == std::string::npos) eol = merges.size();
    std::string line = merges.substr(pos, eol - pos);
    pos = eol + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.rfind("#version", 0) == 0) continue;
    const std::string where = mergesName + ": line " + std::to_string(lineNo);
    if (!utf8::isValid(line)) throw InputError(where + ": invalid UTF-8");
    const std::size_t space = line.find(' ');
    if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
      throw InputError(where + ": expected two tokens separated by one space");
    t.addMerge(line.substr(0, space), line.substr(space + 1), where);
  }
  std::vector<AddedToken> added;
  for (const std::string& s : options.specialTokens)
    if (int id = t.lookup(s); id >= 0) added.push_back({s, id});
  t.setSpecial(added, options.unkToken, vocabName);
  for (const std::string& s : options.bosTokens)
    if (int id = t.lookup(s); id >= 0) t.template_.prefix.push_back(id);
  t.addPrefixSpace_ = options.addPrefixSpace;
  return t;
}

BpeTokenizer BpeTokenizer::fromTokenizerJson(const nlohmann::json& j, const std::string& name) try {
  const nlohmann::json& model = j.at("model");
  BpeTokenizer t;
  t.setVocab(model.at("vocab"), name);
  const nlohmann::json& merges = model.at("merges");
  if (!merges.is_array()) throw InputError(name + ": model.merges is not a list");
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const std::string where = name + ": merge " + std::to_string(i);
    const nlohmann::json& m = merges[i];
    if (m.is_string()) {  // "a b"
      const std::string s = m.get<std::string>();
      const std::size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
        throw InputError(where + ": expected two tokens separated by one space");
      t.addMerge(s.substr(0, space), s.substr(space + 1), where);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {  // ["a", "b"]
      t.addMerge(m[0].get<std::string>(), m[1].get<std::string>(), where);
    } else {
      throw InputError(where + ": expected \"a b\" or [\"a\", \"b\"]");
    }
  }
  std::vector<AddedToken> added;
  if (j.contains("added_tokens") && j["added_tokens"].is_array())
    for (const nlohmann::json& a : j["added_tokens"]) {
      const nlohmann::json& id = a.at("id");
      if (!id.is_number_unsigned() || id.get<std::uint64_t>() > std::uint64_t(kMaxVocabId))
        throw InputError(name + ": added token with an invalid id " + id.dump());
      added.push_back({a.at("content").get<std::string>(), id.get<int>()});
    }
  const nlohmann::json unk = model.value("unk_token", nlohmann::json());
  t.setSpecial(added, unk.is_string() ? unk.get<std::string>() : std::string(), name);
  const nlohmann::json pre = j.value("pre_tokenizer", nlohmann::json());
  if (pre.is_object()) t.addPrefixSpace_ = pre.value("add_prefix_space", false);
  t.template_ = parsePostProcessor(j.value("post_processor", nlohmann::json()), name,
                                   [&t](const std::string& s) { return t.lookup(s); });
  return t;
} catch (const nlohmann::json::exception& e) {
  // A missing required field or a field of the wrong type in otherwise well-formed JSON.
  throw InputError(name + ": unexpected content (" + e.what() + ")");
}

void BpeTokenizer::encodePiece(std::string_view piece, std::size_t srcBase, std::size_t prefixLen, TokenizedText& out,
                               const Utf16Offsets& offsets) const {
  std::vector<Symbol> sym;
  for (std::size_t i = 0; i < piece.size(); ++i) {
    int id = byteId_[static_cast<unsigned char>(piece[i])];
    if (id < 0) id = unkId_;
    if (id < 0) continue;  // no stand-in and no unknown token: the byte is dropped, as Hugging Face does
    const int k = static_cast<int>(sym.size());
    sym.push_back({id, i, i + 1, k - 1, -1});
    if (k > 0) sym[k - 1].next = k;
  }
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
  auto consider = [&](int left) {
    if (left < 0 || sym[left].next < 0) return;
    const Symbol &a = sym[left], &b = sym[a.next];
    const auto it = merges_.find(pairKey(a.id, b.id));
    if (it != merges_.end()) heap.push({it->second.rank, a.begin, left, a.id, b.id});
  };
  for (int k = 0; k < static_cast<int>(sym.size()); ++k) consider(k);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    Symbol& a = sym[c.left];
    // Skip candidates made stale by an earlier merge of either symbol.
    if (a.id != c.leftId || a.next < 0 || sym[a.next].id != c.rightId || a.id < 0) continue;
    Symbol& b = sym[a.next];
    a.id = merges_.at(pairKey(c.leftId, c.rightId)).id;
    a.end = b.end;
    a.next = b.next;
    b.id = -1;  // dead
    if (a.next >= 0) sym[a.next].prev = c.left;
    consider(a.prev);
    consider(c.left);
  }
  // Source bytes of piece byte x: the prepended space (prefixLen bytes) has an empty span at srcBase.
  auto src = [&](std::size_t x) { return srcBase + (x > prefixLen ? x - prefixLen : 0); };
  for (int k = sym.empty() ? -1 : 0; k >= 0; k = sym[k].next) {
    out.tokens.push_back(offsets.token(idToToken_[sym[k].id], src(sym[k].begin), src(sym[k].end)));
    out.ids.push_back(sym[k].id);
  }
}

TokenizedText BpeTokenizer::encode(std::string_view text, bool addSpecial) const {
  const Utf16Offsets offsets(text);
  TokenizedText out;
  for (const TextSegment& seg : splitOnAddedTokens(text, added_)) {
    if (seg.addedId >= 0) {
      out.tokens.push_back(offsets.token(idToToken_.at(seg.addedId), seg.begin, seg.end));
      out.ids.push_back(seg.addedId);
      continue;
    }
    const std::string_view part = text.substr(seg.begin, seg.end - seg.begin);
    const std::size_t prefixLen = addPrefixSpace_ && part[0] != ' ' ? 1 : 0;
    const std::string working = std::string(prefixLen, ' ') + std::string(part);
    for (const auto& [b, e] : gpt2PreTokenize(working)) {
      const std::size_t skip = std::min(b, prefixLen);
      encodePiece(std::string_view(working).substr(b, e - b), seg.begin + (b - skip), prefixLen - skip, out, offsets);
    }
  }
  if (addSpecial) wrapWithSpecial(out, template_, idToToken_, text);
  return out;
}

}  // namespace attnlab
