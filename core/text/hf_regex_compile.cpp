// Compiler of hf_regex.h: syntax tree (hf_regex_ast.h) → backtracking program.
#include "core/base/errors.h"
#include "core/text/hf_regex_ast.h"

namespace attnlab::hfregex {
namespace {

constexpr int kMaxProgram = 200000;  // instructions; a larger program is a hostile pattern

class Compiler {
 public:
  Compiler(Program& p, std::string error) : p_(p), error_(std::move(error)) {}

  int emit(Inst in) {
    if (static_cast<int>(p_.insts.size()) >= kMaxProgram) throw InputError(error_ + "pattern too large");
    p_.insts.push_back(in);
    return static_cast<int>(p_.insts.size()) - 1;
  }

  void compile(const Node& n) {
    switch (n.kind) {
      case Kind::Empty:
        return;
      case Kind::Char:
        emitSimple(Op::Char, n.c, n.icase, 0);
        return;
      case Kind::Class:
        emitSimple(Op::Class, 0, false, n.cls);
        return;
      case Kind::Any:
        emitSimple(Op::Any, 0, false, 0);
        return;
      case Kind::Concat:
        for (const NodePtr& k : n.kids) compile(*k);
        return;
      case Kind::Alt:
        compileAlt(n);
        return;
      case Kind::Repeat:
        compileRepeat(n);
        return;
      case Kind::Look: {
        Inst look{Op::Look};
        look.negate = n.negate;
        const int at = emit(look);
        p_.insts[at].x = at + 1;
        compile(*n.kids[0]);
        emit(Inst{Op::Match});
        p_.insts[at].y = static_cast<int>(p_.insts.size());
        return;
      }
      case Kind::Assert: {
        Inst a{Op::Assert};
        a.assert = n.assert;
        emit(a);
        return;
      }
    }
  }

 private:
  void emitSimple(Op op, char32_t c, bool icase, int x) {
    Inst in{op};
    in.c = icase ? foldCase(c) : c;
    in.icase = icase;
    in.x = x;
    emit(in);
  }

  void compileAlt(const Node& n) {
    std::vector<int> jumps;
    for (std::size_t k = 0; k < n.kids.size(); ++k) {
      int split = -1;
      if (k + 1 < n.kids.size()) split = emit(Inst{Op::Split});
      if (split >= 0) p_.insts[split].x = split + 1;
      compile(*n.kids[k]);
      if (k + 1 < n.kids.size()) {
        jumps.push_back(emit(Inst{Op::Jmp}));
        p_.insts[split].y = static_cast<int>(p_.insts.size());
      }
    }
    for (int j : jumps) p_.insts[j].x = static_cast<int>(p_.insts.size());
  }

  /// A split that prefers the body (greedy) or the exit (lazy); its body target is at + 1, exit patched later.
  int emitLoopSplit() { return emit(Inst{Op::Split}); }
  void patchSplit(int at, int exit, bool greedy) {
    p_.insts[at].x = greedy ? at + 1 : exit;
    p_.insts[at].y = greedy ? exit : at + 1;
  }

  void compileRepeat(const Node& n) {
    const Node& body = *n.kids[0];
    for (int k = 0; k < n.min; ++k) compile(body);
    if (n.max < 0) {
      const int split = emitLoopSplit();
      compile(body);
      Inst back{Op::Jmp};
      back.x = split;
      emit(back);
      patchSplit(split, static_cast<int>(p_.insts.size()), n.greedy);
      return;
    }
    std::vector<int> splits;
    for (int k = n.min; k < n.max; ++k) {
      splits.push_back(emitLoopSplit());
      compile(body);
    }
    for (int s : splits) patchSplit(s, static_cast<int>(p_.insts.size()), n.greedy);
  }

  Program& p_;
  std::string error_;  ///< "<where>: regex \"…\": "
};

}  // namespace

Program compile(const std::string& pattern, const std::string& where) {
  Program prog;
  const NodePtr root = parse(pattern, where, prog);
  Compiler compiler(prog, where + ": regex \"" + pattern + "\": ");
  compiler.compile(*root);
  compiler.emit(Inst{Op::Match});
  return prog;
}

}  // namespace attnlab::hfregex
