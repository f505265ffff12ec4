#include "core/text/hf_regex.h"

#include <unordered_map>
#include <unordered_set>

#include "core/text/unicode_norm.h"
#include "core/text/unicode_props.h"

namespace attnlab {

char32_t foldCase(char32_t c) {
  if (c < 0x80) return c >= U'A' && c <= U'Z' ? c + 32 : c;
  std::u32string s;
  unicode::appendLower(s, c);
  return s.size() == 1 ? s[0] : c;
}

namespace hfregex {

bool CharClass::contains(char32_t c) const {
  auto test = [&](char32_t x) {
    for (const auto& [lo, hi] : ranges)
      if (x >= lo && x <= hi) return true;
    if ((categories >> static_cast<int>(unicode::category(x))) & 1u) return true;
    const bool ws = unicode::isWhitespace(x);
    return (space && ws) || (notSpace && !ws);
  };
  bool in = test(c);
  if (!in && icase) {
    // Case-insensitive classes: also try the lower case, and the ASCII upper case.
    const char32_t lower = foldCase(c);
    in = (lower != c && test(lower)) || (c >= U'a' && c <= U'z' && test(c - 32));
  }
  return in != negate;
}

namespace {

bool isWordChar(char32_t c) {
  using unicode::Category;
  const int k = static_cast<int>(unicode::category(c));
  return k <= static_cast<int>(Category::Nd) || k == static_cast<int>(Category::Pc);
}

/// States (instruction, position) already tried and failed: a bit set over the whole search for the main
/// program (cleared after each match), a hash set for one look-ahead evaluation.
class Visited {
 public:
  Visited(std::size_t states, std::size_t positions) : stride_(positions), bits_((states * positions + 63) / 64) {}
  Visited() = default;
  bool testAndSet(int pc, std::size_t pos) {
    const std::uint64_t key = static_cast<std::uint64_t>(pc) * stride_ + pos;
    if (bits_.empty()) return !set_.insert((static_cast<std::uint64_t>(pc) << 32) | pos).second;
    std::uint64_t& w = bits_[key / 64];
    const std::uint64_t m = std::uint64_t(1) << (key % 64);
    if (w & m) return true;
    w |= m;
    touched_.push_back(key / 64);
    return false;
  }
  void clear() {
    for (std::size_t k : touched_) bits_[k] = 0;
    touched_.clear();
    set_.clear();
  }

 private:
  std::size_t stride_ = 0;
  std::vector<std::uint64_t> bits_;
  std::vector<std::size_t> touched_;
  std::unordered_set<std::uint64_t> set_;
};

class Matcher {
 public:
  Matcher(const Program& p, const std::u32string& text) : p_(p), s_(text) {}

  /// End of the first match (in priority order) starting at `pos` from instruction `pc`, or −1.
  long run(int pc, std::size_t pos, Visited& visited) {
    std::vector<std::pair<int, std::size_t>> stack{{pc, pos}};
    while (!stack.empty()) {
      std::tie(pc, pos) = stack.back();
      stack.pop_back();
      for (bool alive = true; alive;) {
        const Inst& in = p_.insts[pc];
        switch (in.op) {
          case Op::Char:
            alive = pos < s_.size() && (in.icase ? foldCase(s_[pos]) : s_[pos]) == in.c;
            ++pos, ++pc;
            break;
          case Op::Class:
            alive = pos < s_.size() && p_.classes[in.x].contains(s_[pos]);
            ++pos, ++pc;
            break;
          case Op::Any:
            alive = pos < s_.size() && s_[pos] != U'\n';
            ++pos, ++pc;
            break;
          case Op::Jmp:
            pc = in.x;
            break;
          case Op::Split:
            // A state seen before has had both branches queued then: queueing its second branch again let a lazy
            // loop over a body that matches empty, "(K*)*?", queue forever (found by fuzz_hf_tokenizer).
            alive = !visited.testAndSet(pc, pos);
            if (alive) stack.emplace_back(in.y, pos);
            pc = in.x;
            break;
          case Op::Match:
            return static_cast<long>(pos);
          case Op::Look:
            alive = look(pc, pos) != in.negate;
            pc = in.y;
            break;
          case Op::Assert:
            alive = check(in.assert, pos);
            ++pc;
            break;
        }
      }
    }
    return -1;
  }

 private:
  bool look(int pc, std::size_t pos) {
    const std::uint64_t key = (static_cast<std::uint64_t>(pc) << 32) | pos;
    const auto it = lookMemo_.find(key);
    if (it != lookMemo_.end()) return it->second;
    Visited local;
    const bool found = run(p_.insts[pc].x, pos, local) >= 0;
    lookMemo_.emplace(key, found);
    return found;
  }

  bool check(AssertKind k, std::size_t pos) const {
    const std::size_t n = s_.size();
    switch (k) {
      case AssertKind::LineBegin:
        return pos == 0 || s_[pos - 1] == U'\n';
      case AssertKind::LineEnd:
        return pos == n || s_[pos] == U'\n';
      case AssertKind::TextBegin:
        return pos == 0;
      case AssertKind::TextEnd:
        return pos == n;
      case AssertKind::TextEndNewline:
        return pos == n || (pos + 1 == n && s_[pos] == U'\n');
      case AssertKind::Word:
      case AssertKind::NotWord: {
        const bool before = pos > 0 && isWordChar(s_[pos - 1]), after = pos < n && isWordChar(s_[pos]);
        return (before != after) == (k == AssertKind::Word);
      }
    }
    return false;
  }

  const Program& p_;
  const std::u32string& s_;
  std::unordered_map<std::uint64_t, bool> lookMemo_;
};

}  // namespace
}  // namespace hfregex

HfRegex::HfRegex(const std::string& pattern, const std::string& where)
    : pattern_(pattern), program_(hfregex::compile(pattern, where)) {}

std::vector<std::pair<std::size_t, std::size_t>> HfRegex::findAll(const std::u32string& text) const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  hfregex::Matcher m(program_, text);
  // A failed state stays failed for every later start position (no captures, no back-references), so
  // the bits are kept across starts and cleared only after a match.
  hfregex::Visited visited(program_.insts.size(), text.size() + 1);
  long lastEnd = -1;
  for (std::size_t start = 0; start <= text.size();) {
    const long end = m.run(0, start, visited);
    // Like the onig crate's find_iter: an empty match right where the previous match ended is skipped.
    if (end < 0 || (end == static_cast<long>(start) && lastEnd == end)) {
      if (end >= 0) visited.clear();  // the marks of a match are not all failures
      ++start;
      continue;
    }
    out.emplace_back(start, static_cast<std::size_t>(end));
    visited.clear();
    lastEnd = end;
    start = static_cast<std::size_t>(end) > start ? static_cast<std::size_t>(end) : start + 1;
  }
  return out;
}

}  // namespace attnlab
