#include "core/atlas/atlas_probe.h"

#include <algorithm>
#include <set>

#include "core/base/errors.h"
#include "core/base/rng.h"

namespace attnlab {

namespace {

/// Words for the built-in model, which embeds any word by hashing it: common, lower-case, distinct.
const std::vector<std::string>& probeWords() {
  static const std::vector<std::string> words = {
      "time",   "year",   "people",  "way",     "day",     "man",     "thing",    "woman",    "life",     "child",
      "world",  "school", "state",   "family",  "student", "group",   "country",  "problem",  "hand",     "part",
      "place",  "case",   "week",    "company", "system",  "program", "question", "work",     "number",   "night",
      "point",  "home",   "water",   "room",    "mother",  "area",    "money",    "story",    "fact",     "month",
      "lot",    "right",  "study",   "book",    "eye",     "job",     "word",     "business", "issue",    "side",
      "kind",   "head",   "house",   "service", "friend",  "father",  "power",    "hour",     "game",     "line",
      "end",    "member", "law",     "car",     "city",    "name",    "team",     "minute",   "idea",     "kid",
      "body",   "back",   "parent",  "face",    "others",  "level",   "office",   "door",     "health",   "person",
      "art",    "war",    "history", "party",   "result",  "change",  "morning",  "reason",   "research", "girl",
      "guy",    "moment", "air",     "teacher", "force",   "river",   "garden",   "bread",    "stone",    "cloud",
      "horse",  "apple",  "train",   "music",   "paper",   "window",  "table",    "chair",    "glass",    "field",
      "forest", "island", "letter",  "market",  "orange",  "pencil",  "rabbit",   "silver",   "summer",   "ticket",
      "tiger",  "violin", "winter",  "yellow",  "zebra",   "anchor",  "basket",   "candle"};
  return words;
}

bool isAlnumOr(const std::string& s, const std::string& extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           extra.find(c) != std::string::npos;
  });
}

/// The special tokens the tokenizer writes around a text: leading and trailing tokens with empty spans.
void framing(const Model& model, std::vector<int>& prefix, std::vector<int>& suffix) {
  const TokenizedText t = model.tokenize("a");
  const auto empty = [&](std::size_t i) { return t.tokens[i].byteBegin == t.tokens[i].byteEnd; };
  std::size_t begin = 0, end = t.tokens.size();
  while (begin < end && empty(begin)) prefix.push_back(t.ids[begin++]);
  while (end > begin && empty(end - 1)) --end;
  for (std::size_t i = end; i < t.tokens.size(); ++i) suffix.push_back(t.ids[i]);
}

/// Ids a probe may draw: the vocabulary without reserved, framing and special-looking tokens.
std::vector<int> usableIds(const Model& model, const std::set<int>& framingIds) {
  std::vector<int> ids;
  const int vocab = model.vocabularySize();
  for (int id = 0; id < vocab; ++id) {
    if (framingIds.count(id) || model.isReservedToken(id)) continue;
    const std::string piece = model.vocabularyPiece(id);
    if (!piece.empty() && !looksLikeSpecialPiece(piece)) ids.push_back(id);
  }
  return ids;
}

/// T draws from [0, n): distinct (a partial Fisher–Yates shuffle) when n ≥ T, else uniform with repetition.
std::vector<int> draw(int n, int count, unsigned long long seed) {
  Rng rng(mixSeed(seed, 0x61746c6173ull));  // "atlas": probes do not share streams with other seeded draws
  std::vector<int> out;
  if (n >= count) {
    std::vector<int> pool(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) pool[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < count; ++i) {
      const int j = i + static_cast<int>(rng.next() % static_cast<uint64_t>(n - i));
      std::swap(pool[static_cast<std::size_t>(i)], pool[static_cast<std::size_t>(j)]);
      out.push_back(pool[static_cast<std::size_t>(i)]);
    }
  } else {
    for (int i = 0; i < count; ++i) out.push_back(static_cast<int>(rng.next() % static_cast<uint64_t>(n)));
  }
  return out;
}

std::string repetitionNote(int usable, int repeat) {
  return "the vocabulary has " + std::to_string(usable) + " ordinary tokens, fewer than the probe's " +
         std::to_string(repeat) + ": tokens repeat within a copy, so induction and duplicate-token scores are blurred";
}

}  // namespace

bool looksLikeSpecialPiece(const std::string& piece) {
  if (piece.size() < 3) return false;
  const std::string inner = piece.substr(1, piece.size() - 2);
  if (piece.rfind("<|", 0) == 0 && piece.size() >= 4 && piece.compare(piece.size() - 2, 2, "|>") == 0) return true;
  if (piece.front() == '[' && piece.back() == ']') return isAlnumOr(inner, "_");
  if (piece.front() == '<' && piece.back() == '>') {
    const bool byteFallback = piece.size() == 6 && piece.rfind("<0x", 0) == 0;
    return !byteFallback && isAlnumOr(inner, "_/|-");
  }
  return false;
}

AtlasProbe makeProbe(const Model& model, int repeat, unsigned long long seed) {
  if (repeat < 2)
    throw InputError("the probe needs at least 2 random tokens to repeat (asked for " + std::to_string(repeat) + ")");
  AtlasProbe p;
  p.repeat = repeat;
  p.seed = seed;
  std::vector<int> prefix, suffix;
  const bool words = model.vocabularySize() == 0;
  if (!words) {
    framing(model, prefix, suffix);
    const int eot = model.vocabularyId("<|endoftext|>");
    if (prefix.empty() && eot >= 0) prefix.push_back(eot);
  }
  const int length = static_cast<int>(prefix.size() + suffix.size()) + 2 * repeat;
  const int context = model.info().maxTokens;
  if (length > context)
    throw InputError("the probe of 2 × " + std::to_string(repeat) + " random tokens takes " + std::to_string(length) +
                     " tokens, more than the " + std::to_string(context) + " the model accepts");
  p.offset = static_cast<int>(prefix.size());
  p.suffix = static_cast<int>(suffix.size());
  std::vector<std::string> pieces;
  std::vector<int> pool;
  if (words) {
    pieces = probeWords();
  } else {
    std::set<int> framingIds(prefix.begin(), prefix.end());
    framingIds.insert(suffix.begin(), suffix.end());
    pool = usableIds(model, framingIds);
    if (pool.empty()) throw InputError("the model's vocabulary has no ordinary tokens to draw a probe from");
  }
  const int available = words ? static_cast<int>(pieces.size()) : static_cast<int>(pool.size());
  if (available < repeat) p.notes.push_back(repetitionNote(available, repeat));
  const std::vector<int> picks = draw(available, repeat, seed);
  for (int id : prefix) p.ids.push_back(id), p.tokens.push_back(model.vocabularyPiece(id));
  for (int copy = 0; copy < 2; ++copy)
    for (int k : picks) {
      if (words) {
        p.tokens.push_back(pieces[static_cast<std::size_t>(k)]);
      } else {
        p.ids.push_back(pool[static_cast<std::size_t>(k)]);
        p.tokens.push_back(model.vocabularyPiece(pool[static_cast<std::size_t>(k)]));
      }
    }
  for (int id : suffix) p.ids.push_back(id), p.tokens.push_back(model.vocabularyPiece(id));
  return p;
}

TokenizedText probeText(const AtlasProbe& probe) {
  TokenizedText t;
  for (const std::string& s : probe.tokens) t.tokens.push_back(Token{s});
  t.ids = probe.ids;
  return t;
}

}  // namespace attnlab
