#pragma once
// General categories and the four Unicode normalization forms, exact for Unicode 14 (tables generated
// from Python's unicodedata by tools/gen_unicode_norm.py). Used by the tokenizer.json engine: its regexes
// ask for \p{Lu}, \p{S}, … and its normalizers for NFC/NFKC/NFD/NFKD.
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::unicode {

/// The general categories, in the order the generated tables use.
enum class Category : std::uint8_t {
  Lu,
  Ll,
  Lt,
  Lm,
  Lo,
  Mn,
  Mc,
  Me,
  Nd,
  Nl,
  No,
  Pc,
  Pd,
  Ps,
  Pe,
  Pi,
  Pf,
  Po,
  Sm,
  Sc,
  Sk,
  So,
  Zs,
  Zl,
  Zp,
  Cc,
  Cf,
  Cs,
  Co,
  Cn
};
constexpr int kCategoryCount = 30;

Category category(char32_t c);
int combiningClass(char32_t c);  ///< canonical combining class (0 for starters)

enum class NormalForm { NFC, NFD, NFKC, NFKD };

/// Normalizes `in` into `out`. origin[k] is the index in `in` of the character out[k] comes from: every
/// piece of a decomposition comes from its source character, a composition from its starter (the way
/// Hugging Face's NormalizedString aligns them, so e + U+0301 → é keeps only the e's span).
void normalize(const std::u32string& in, NormalForm form, std::u32string& out, std::vector<int>& origin);

}  // namespace attnlab::unicode
