#pragma once
// The regular expressions of tokenizer.json files (Split pre-tokenizers, Replace normalizers), matched as
// Hugging Face's tokenizers matches them with Oniguruma (Ruby syntax): over code points, leftmost-first
// alternation, greedy or lazy quantifiers, \p{…} general categories, (?i:…), look-ahead, ^ $ at line ends.
// A backtracking matcher that never retries a (state, position) pair, so one search costs at most
// program size × text length steps (the Llama-3 pattern runs in linear time in practice).
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

namespace hfregex {

/// A set of code points: ranges, general categories (bit k = unicode::Category k) and White_Space.
struct CharClass {
  std::vector<std::pair<char32_t, char32_t>> ranges;
  std::uint32_t categories = 0;
  bool space = false, notSpace = false;  ///< \s / \S inside the class
  bool negate = false, icase = false;
  bool contains(char32_t c) const;
};

enum class Op : std::uint8_t { Char, Class, Any, Split, Jmp, Match, Look, Assert };
enum class AssertKind : std::uint8_t { LineBegin, LineEnd, TextBegin, TextEnd, TextEndNewline, Word, NotWord };

struct Inst {
  Op op = Op::Match;
  bool icase = false, negate = false;  ///< Char: case-insensitive; Look: negative look-ahead
  AssertKind assert = AssertKind::LineBegin;
  char32_t c = 0;    ///< Char
  int x = 0, y = 0;  ///< Split: preferred x, then y; Jmp: x; Look: body at x, continue at y; Class: index x
};

struct Program {
  std::vector<Inst> insts;
  std::vector<CharClass> classes;
};

/// Parses `pattern` (UTF-8) into a program. Throws InputError("<where>: regex \"…\": <problem>").
Program compile(const std::string& pattern, const std::string& where);

}  // namespace hfregex

class HfRegex {
 public:
  HfRegex(const std::string& pattern, const std::string& where);
  /// Non-overlapping matches [begin, end) in code point indices, left to right, as the onig crate's
  /// find_iter gives them (after an empty match the search resumes one character later; an empty match
  /// where the previous match ended is skipped).
  std::vector<std::pair<std::size_t, std::size_t>> findAll(const std::u32string& text) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  hfregex::Program program_;
};

/// Simple lower case of one code point (itself when the full mapping is not a single code point).
char32_t foldCase(char32_t c);

}  // namespace attnlab
