#include "core/text/hf_models.h"

#include <array>
#include <cstdio>
#include <limits>
#include <queue>

#include "core/base/errors.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

using ByteIds = std::array<int, 256>;

/// The ids of the byte-fallback pieces "<0x00>" … "<0xFF>" (−1 where the vocabulary has none): BPE and Unigram alike.
ByteIds byteFallbackIds(const HfVocab& vocab) {
  ByteIds ids;
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    ids[static_cast<std::size_t>(b)] = vocab.lookup(name);
  }
  return ids;
}

std::string toUtf8(const std::u32string& s, std::size_t b, std::size_t e) {
  std::string out;
  for (std::size_t k = b; k < e; ++k) utf8::append(out, s[k]);
  return out;
}

std::string optionalString(const nlohmann::json& m, const char* key) {
  return m.contains(key) && m[key].is_string() ? m[key].get<std::string>() : std::string();
}

void readVocab(const nlohmann::json& v, const std::string& where, HfVocab& vocab) {
  if (!v.is_object()) throw InputError(where + ": model.vocab is not an object of token → id");
  std::uint64_t maxId = 0;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!validId(it.value()))
      throw InputError(where + ": token \"" + it.key() + "\" has an invalid id " + it.value().dump());
    vocab.ids[it.key()] = it.value().get<int>();
    maxId = std::max(maxId, it.value().get<std::uint64_t>());
  }
  vocab.tokens.assign(v.empty() ? 0 : maxId + 1, std::string());
  for (const auto& [token, id] : vocab.ids) vocab.tokens[static_cast<std::size_t>(id)] = token;
}

class BpeModel : public HfTokenModel {
 public:
  BpeModel(const nlohmann::json& m, const std::string& file) {
    readVocab(m.at("vocab"), file, vocab);
    prefix_ = optionalString(m, "continuing_subword_prefix");
    suffix_ = optionalString(m, "end_of_word_suffix");
    byteFallback_ = m.value("byte_fallback", false);
    fuseUnk_ = m.value("fuse_unk", false);
    ignoreMerges_ = m.value("ignore_merges", false);
    const nlohmann::json dropout = m.value("dropout", nlohmann::json());
    if (!dropout.is_null() && !(dropout.is_number() && dropout.get<double>() == 0.0))
      throw InputError(file + ": model BPE with dropout is not supported (encoding would be random)");
    if (const std::string unk = optionalString(m, "unk_token"); !unk.empty()) {
      unkId_ = vocab.lookup(unk);
      if (unkId_ < 0) throw InputError(file + ": model unk_token \"" + unk + "\" is not in the vocabulary");
    }
    const nlohmann::json& merges = m.at("merges");
    if (!merges.is_array()) throw InputError(file + ": model.merges is not a list");
    for (std::size_t i = 0; i < merges.size(); ++i) addMerge(merges[i], file + ": merge " + std::to_string(i));
    byteIds_ = byteFallbackIds(vocab);
  }

  void tokenize(const std::u32string& piece, std::vector<ModelToken>& out) const override;

 private:
  struct Symbol {
    int id;
    std::size_t begin, end;  ///< characters of the piece
    int prev, next;
  };
  struct Merge {
    int rank, id;
  };
  static std::uint64_t key(int a, int b) {
    return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
  }

  void addMerge(const nlohmann::json& m, const std::string& where) {
    std::string a, b;
    if (m.is_string()) {  // "a b"
      const std::string s = m.get<std::string>();
      const std::size_t space = s.find(' ');
      if (space == std::string::npos) throw InputError(where + ": expected two tokens separated by a space");
      a = s.substr(0, space);
      b = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      throw InputError(where + ": expected \"a b\" or [\"a\", \"b\"]");
    }
    // With a continuing-subword prefix the merged token drops the right part's prefix ("##").
    const std::string joined = a + (b.compare(0, prefix_.size(), prefix_) == 0 ? b.substr(prefix_.size()) : b);
    const int ia = vocab.lookup(a), ib = vocab.lookup(b), merged = vocab.lookup(joined);
    if (ia < 0 || ib < 0 || merged < 0)
      throw InputError(where + ": merge \"" + a + " " + b + "\" uses a token that is not in the vocabulary");
    merges_.emplace(key(ia, ib), Merge{static_cast<int>(merges_.size()), merged});
  }

  std::vector<Symbol> initialSymbols(const std::u32string& piece) const;

  std::unordered_map<std::uint64_t, Merge> merges_;
  std::string prefix_, suffix_;
  ByteIds byteIds_;  ///< byte fallback: the id of "<0xNN>" for each byte, −1 where the vocabulary lacks it
  int unkId_ = -1;
  bool byteFallback_ = false, fuseUnk_ = false, ignoreMerges_ = false;
};

/// The characters as symbols, as Hugging Face's BPE::merge_word builds them: vocabulary hits, else the
/// <0xNN> tokens of the bytes, else the unknown token (consecutive ones fused when fuse_unk).
std::vector<BpeModel::Symbol> BpeModel::initialSymbols(const std::u32string& piece) const {
  std::vector<Symbol> sym;
  auto push = [&](int id, std::size_t b, std::size_t e) {
    const int k = static_cast<int>(sym.size());
    sym.push_back({id, b, e, k - 1, -1});
    if (k > 0) sym[k - 1].next = k;
  };
  int unkBegin = -1, unkEnd = -1;  // a pending unknown token's characters
  auto flushUnk = [&] {
    if (unkBegin >= 0) push(unkId_, static_cast<std::size_t>(unkBegin), static_cast<std::size_t>(unkEnd));
    unkBegin = -1;
  };
  for (std::size_t k = 0; k < piece.size(); ++k) {
    std::string s = (k > 0 ? prefix_ : std::string()) + toUtf8(piece, k, k + 1);
    if (k + 1 == piece.size()) s += suffix_;
    if (const int id = vocab.lookup(s); id >= 0) {
      flushUnk();
      push(id, k, k + 1);
      continue;
    }
    if (byteFallback_) {
      bool all = true;
      for (unsigned char b : s) all = all && byteIds_[b] >= 0;
      if (all) {  // like Hugging Face, this does not flush a pending unknown token first
        for (unsigned char b : s) push(byteIds_[b], k, k + 1);
        continue;
      }
    }
    if (unkId_ < 0) continue;  // no unknown token: the character is dropped
    if (unkBegin >= 0 && fuseUnk_) {
      unkEnd = static_cast<int>(k + 1);
      continue;
    }
    flushUnk();
    unkBegin = static_cast<int>(k);
    unkEnd = static_cast<int>(k + 1);
  }
  flushUnk();
  return sym;
}

void BpeModel::tokenize(const std::u32string& piece, std::vector<ModelToken>& out) const {
  if (piece.empty()) return;
  if (ignoreMerges_)
    if (const int id = vocab.lookup(toUtf8(piece, 0, piece.size())); id >= 0) {
      out.push_back({id, 0, piece.size()});
      return;
    }
  std::vector<Symbol> sym = initialSymbols(piece);
  struct Candidate {
    int rank;
    std::size_t pos;  // equal ranks merge leftmost first
    int left, leftId, rightId;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
  auto consider = [&](int left) {
    if (left < 0 || sym[left].next < 0) return;
    const Symbol &a = sym[left], &b = sym[a.next];
    const auto it = merges_.find(key(a.id, b.id));
    if (it != merges_.end()) heap.push({it->second.rank, static_cast<std::size_t>(left), left, a.id, b.id});
  };
  for (int k = 0; k < static_cast<int>(sym.size()); ++k) consider(k);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    Symbol& a = sym[c.left];
    if (a.id != c.leftId || a.next < 0 || sym[a.next].id != c.rightId) continue;  // stale
    Symbol& b = sym[a.next];
    a.id = merges_.at(key(c.leftId, c.rightId)).id;
    a.end = b.end;
    a.next = b.next;
    b.id = -1;
    if (a.next >= 0) sym[a.next].prev = c.left;
    consider(a.prev);
    consider(c.left);
  }
  for (int k = sym.empty() ? -1 : 0; k >= 0; k = sym[k].next) out.push_back({sym[k].id, sym[k].begin, sym[k].end});
}

/// Greedy longest-match-first from the left; continuation pieces carry the prefix ("##").
class WordPieceModel : public HfTokenModel {
 public:
  WordPieceModel(const nlohmann::json& m, const std::string& file) {
    readVocab(m.at("vocab"), file, vocab);
    prefix_ = m.contains("continuing_subword_prefix") ? optionalString(m, "continuing_subword_prefix") : "##";
    maxChars_ = m.value("max_input_chars_per_word", 100);
    const std::string unk = m.contains("unk_token") ? optionalString(m, "unk_token") : "[UNK]";
    unkId_ = vocab.lookup(unk);
    if (unkId_ < 0) throw InputError(file + ": model unk_token \"" + unk + "\" is not in the vocabulary");
  }

  void tokenize(const std::u32string& piece, std::vector<ModelToken>& out) const override {
    if (piece.size() > static_cast<std::size_t>(maxChars_)) {
      out.push_back({unkId_, 0, piece.size()});
      return;
    }
    std::vector<ModelToken> word;
    for (std::size_t start = 0; start < piece.size();) {
      int id = -1;
      std::size_t end = piece.size();
      for (; end > start; --end)
        if ((id = vocab.lookup((start > 0 ? prefix_ : std::string()) + toUtf8(piece, start, end))) >= 0) break;
      if (id < 0) {
        out.push_back({unkId_, 0, piece.size()});
        return;
      }
      word.push_back({id, start, end});
      start = end;
    }
    out.insert(out.end(), word.begin(), word.end());
  }

 private:
  std::string prefix_;
  int maxChars_ = 100, unkId_ = -1;
};

/// Hugging Face's Unigram (its optimized Viterbi, Unigram::encode_optimized): the best-scoring cut of the
/// piece's UTF-8 bytes into vocabulary pieces, found over a trie of every piece (special ones included).
/// A character where no piece of exactly that one character starts also gets an unknown node scored
/// min score − 10; at equal scores the first candidate (shorter pieces come first) is kept. Consecutive
/// unknown pieces are fused (fuse_unk, always on for Unigram); an unknown piece becomes the <0xNN> tokens
/// of its bytes when byte_fallback is on and every one exists, each spanning the whole piece.
class UnigramModel : public HfTokenModel {
 public:
  UnigramModel(const nlohmann::json& m, const std::string& file) {
    const nlohmann::json& v = m.at("vocab");
    if (!v.is_array() || v.empty()) throw InputError(file + ": model Unigram needs a non-empty vocab list");
    scores_.reserve(v.size());
    vocab.tokens.reserve(v.size());
    double minScore = std::numeric_limits<double>::infinity();
    for (std::size_t id = 0; id < v.size(); ++id) {
      const nlohmann::json& e = v[id];
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
        throw InputError(file + ": Unigram vocab entry " + std::to_string(id) + " is not [\"piece\", score]");
      const std::string piece = e[0].get<std::string>();
      vocab.ids[piece] = static_cast<int>(id);  // a repeated piece: the last id wins, as in Hugging Face
      vocab.tokens.push_back(piece);
      scores_.push_back(e[1].get<double>());
      minScore = std::min(minScore, scores_.back());
      insert(piece);
    }
    unkScore_ = minScore - 10.0;
    const nlohmann::json unk = m.value("unk_id", nlohmann::json());
    // Hugging Face loads a file without one but fails on the first character outside the vocabulary.
    if (unk.is_null()) throw InputError(file + ": model Unigram without unk_id is not supported");
    if (!validId(unk) || unk.get<std::size_t>() >= v.size())
      throw InputError(file + ": model unk_id " + unk.dump() + " is not an id of the vocabulary");
    unkId_ = unk.get<int>();
    byteFallback_ = m.value("byte_fallback", false);
    byteIds_ = byteFallbackIds(vocab);
  }

  void tokenize(const std::u32string& piece, std::vector<ModelToken>& out) const override;

 private:
  /// A byte trie of the pieces: children as (byte, node) pairs, `id` ≥ 0 where a piece ends.
  struct Node {
    std::vector<std::pair<unsigned char, int>> next;
    int id = -1;
  };
  int child(int node, unsigned char b) const {
    for (const auto& [c, n] : trie_[static_cast<std::size_t>(node)].next)
      if (c == b) return n;
    return -1;
  }
  void insert(const std::string& piece) {
    int node = 0;
    for (unsigned char b : piece) {
      int n = child(node, b);
      if (n < 0) {
        n = static_cast<int>(trie_.size());
        trie_[static_cast<std::size_t>(node)].next.emplace_back(b, n);
        trie_.emplace_back();
      }
      node = n;
    }
    trie_[static_cast<std::size_t>(node)].id = vocab.lookup(piece);
  }

  std::vector<Node> trie_{Node()};
  std::vector<double> scores_;
  double unkScore_ = 0;
  int unkId_ = -1;
  bool byteFallback_ = false;
  ByteIds byteIds_;  ///< byte fallback: the id of "<0xNN>" for each byte, −1 where the vocabulary lacks it
};

void UnigramModel::tokenize(const std::u32string& piece, std::vector<ModelToken>& out) const {
  if (piece.empty()) return;
  std::string s;
  std::vector<std::size_t> charAt;  // byte offset → character index (at character starts and the end)
  for (std::size_t k = 0; k < piece.size(); ++k) {
    charAt.resize(s.size() + 1, k);
    utf8::append(s, piece[k]);
  }
  charAt.resize(s.size() + 1, piece.size());
  charAt[s.size()] = piece.size();
  struct Best {
    int id = -1;
    double score = 0;
    std::size_t start = 0;
    bool set = false;
  };
  std::vector<Best> best(s.size() + 1);
  auto offer = [&](std::size_t end, std::size_t start, int id, double score) {
    Best& b = best[end];
    if (!b.set || score > b.score) b = {id, score, start, true};
  };
  for (std::size_t start = 0; start < s.size();) {
    const std::size_t charLen = utf8::decode(s, start).size;
    const double here = best[start].score;
    bool singleChar = false;
    int node = 0;
    for (std::size_t pos = start; pos < s.size();) {
      node = child(node, static_cast<unsigned char>(s[pos++]));
      if (node < 0) break;
      const int id = trie_[static_cast<std::size_t>(node)].id;
      if (id < 0) continue;
      offer(pos, start, id, here + scores_[static_cast<std::size_t>(id)]);
      singleChar = singleChar || pos - start == charLen;
    }
    if (!singleChar) offer(start + charLen, start, unkId_, here + unkScore_);
    start += charLen;
  }
  // Back from the end: the best path's pieces, unknown ones fused with their unknown neighbours.
  std::vector<std::pair<std::size_t, std::size_t>> cuts;  // byte ranges, last first
  bool lastUnk = false;
  for (std::size_t end = s.size(); end > 0;) {
    const Best& b = best[end];
    const bool unk = b.id == unkId_;
    if (unk && lastUnk)
      cuts.back().first = b.start;
    else
      cuts.emplace_back(b.start, end);
    lastUnk = unk;
    end = b.start;
  }
  for (auto it = cuts.rbegin(); it != cuts.rend(); ++it) {
    const auto [b, e] = *it;
    const std::size_t cb = charAt[b], ce = charAt[e];
    const int id = vocab.lookup(s.substr(b, e - b));
    if (id >= 0) {
      out.push_back({id, cb, ce});
      continue;
    }
    bool bytes = byteFallback_;
    for (std::size_t k = b; bytes && k < e; ++k) bytes = byteIds_[static_cast<unsigned char>(s[k])] >= 0;
    if (bytes) {
      for (std::size_t k = b; k < e; ++k) out.push_back({byteIds_[static_cast<unsigned char>(s[k])], cb, ce});
      continue;
    }
    out.push_back({unkId_, cb, ce});
  }
}

}  // namespace

std::unique_ptr<HfTokenModel> makeTokenModel(const nlohmann::json& model, const std::string& file) {
  if (!model.is_object()) throw InputError(file + ": no \"model\" object");
  std::string type = model.value("type", std::string());
  if (type.empty() && model.contains("merges")) type = "BPE";  // old files omit the type
  if (type == "BPE") return std::make_unique<BpeModel>(model, file);
  if (type == "WordPiece") return std::make_unique<WordPieceModel>(model, file);
  if (type == "Unigram") return std::make_unique<UnigramModel>(model, file);
  throw InputError(file + ": model type \"" + type + "\" is not supported");
}

}  // namespace attnlab
