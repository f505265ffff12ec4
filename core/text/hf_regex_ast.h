#pragma once
// Internal to the regex engine (hf_regex.h): the syntax tree the parser builds and the compiler turns
// into a program.
#include <memory>
#include <string>
#include <vector>

#include "core/text/hf_regex.h"

namespace attnlab::hfregex {

enum class Kind { Empty, Char, Class, Any, Concat, Alt, Repeat, Look, Assert };

struct Node {
  Kind kind = Kind::Empty;
  char32_t c = 0;
  bool icase = false, negate = false, greedy = true;
  int min = 0, max = -1;  ///< Repeat; max −1: unbounded
  int cls = 0;
  AssertKind assert = AssertKind::LineBegin;
  std::vector<std::unique_ptr<Node>> kids;
};
using NodePtr = std::unique_ptr<Node>;

/// Parses `pattern`; character classes go to prog.classes. Throws InputError naming `where` and the regex.
NodePtr parse(const std::string& pattern, const std::string& where, Program& prog);

}  // namespace attnlab::hfregex
