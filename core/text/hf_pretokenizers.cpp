// The pre-tokenizers of tokenizer.json (see hf_normalizers.h).
#include <cctype>

#include "core/base/errors.h"
#include "core/text/bpe_tokenizer.h"
#include "core/text/hf_normalizers.h"
#include "core/text/unicode_norm.h"
#include "core/text/unicode_props.h"
#include "core/text/utf8.h"

namespace attnlab {
namespace {

// GPT-2's pattern, which ByteLevel applies when use_regex is true.
const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

/// Applies `f` to every piece and concatenates what it returns.
HfPreTokenizer eachPiece(std::function<std::vector<NormalizedText>(NormalizedText&)> f) {
  return [f](std::vector<NormalizedText>& pieces) {
    std::vector<NormalizedText> out;
    for (NormalizedText& p : pieces)
      for (NormalizedText& q : f(p))
        if (!q.chars.empty()) out.push_back(std::move(q));
    pieces = std::move(out);
  };
}

HfPreTokenizer splitWith(HfPattern pattern, SplitBehavior behavior, bool invert = false) {
  return eachPiece([pattern, behavior, invert](NormalizedText& p) { return splitText(p, pattern, behavior, invert); });
}

/// Each character becomes the stand-ins of its UTF-8 bytes (OpenAI's bytes_to_unicode), all aligned to it.
void toByteStandIns(NormalizedText& t) {
  static const std::vector<char32_t> standIn = [] {
    std::vector<char32_t> v;
    for (const std::string& s : byteStandIns()) v.push_back(utf8::decode(s, 0).value);
    return v;
  }();
  NormalizedText out;
  for (std::size_t k = 0; k < t.chars.size(); ++k) {
    std::string bytes;
    utf8::append(bytes, t.chars[k]);
    for (unsigned char b : bytes) out.chars += standIn[b];
    out.align.insert(out.align.end(), bytes.size(), t.align[k]);
  }
  t = std::move(out);
}

HfPreTokenizer byteLevel(const nlohmann::json& j, const std::string& where) {
  const bool prefix = j.value("add_prefix_space", true), useRegex = j.value("use_regex", true);
  const HfPattern gpt2 = HfPattern::fromJson({{"Regex", kGpt2Pattern}}, where);
  return [prefix, useRegex, gpt2](std::vector<NormalizedText>& pieces) {
    std::vector<NormalizedText> out;
    for (NormalizedText& p : pieces) {
      if (prefix && (p.chars.empty() || p.chars[0] != U' ')) p.prepend(U" ");
      std::vector<NormalizedText> parts =
          useRegex ? splitText(p, gpt2, SplitBehavior::Isolated) : std::vector<NormalizedText>{std::move(p)};
      for (NormalizedText& q : parts) {
        toByteStandIns(q);
        if (!q.chars.empty()) out.push_back(std::move(q));
      }
    }
    pieces = std::move(out);
  };
}

HfPreTokenizer metaspace(const nlohmann::json& j, const std::string& where) {
  const std::u32string rep = toU32(j.value("replacement", std::string("\xE2\x96\x81")));
  if (rep.size() != 1) throw InputError(where + ": replacement must be one character");
  std::string scheme = j.value("prepend_scheme", std::string());
  if (scheme.empty()) scheme = j.value("add_prefix_space", true) ? "always" : "never";  // older files
  if (scheme != "always" && scheme != "first" && scheme != "never")
    throw InputError(where + ": prepend_scheme \"" + scheme + "\" is not supported");
  const bool split = j.value("split", true);
  const HfPattern space = HfPattern::fromJson({{"String", " "}}, where);
  const char32_t r = rep[0];
  const HfPattern onRep = HfPattern::ofChars([r](char32_t c) { return c == r; });
  return eachPiece([=](NormalizedText& p) {
    replaceText(p, space, rep);
    // "first": only the piece that starts the text (original offset 0) gets the replacement prepended.
    const bool first = !p.chars.empty() && p.align[0].begin == 0;
    if ((scheme == "always" || (scheme == "first" && first)) && (p.chars.empty() || p.chars[0] != r)) p.prepend(rep);
    return split ? splitText(p, onRep, SplitBehavior::MergedWithNext) : std::vector<NormalizedText>{p};
  });
}

HfPreTokenizer sequence(const nlohmann::json& j, const std::string& file, const std::string& where) {
  const nlohmann::json list = j.value("pretokenizers", nlohmann::json());
  if (!list.is_array()) throw InputError(where + " has no \"pretokenizers\" list");
  std::vector<HfPreTokenizer> parts;
  for (const nlohmann::json& p : list)
    if (HfPreTokenizer f = makePreTokenizer(p, file)) parts.push_back(std::move(f));
  return [parts](std::vector<NormalizedText>& pieces) {
    for (const HfPreTokenizer& f : parts) f(pieces);
  };
}

}  // namespace

HfPreTokenizer makePreTokenizer(const nlohmann::json& j, const std::string& file) {
  if (j.is_null()) return {};
  if (!j.is_object()) throw InputError(file + ": pre_tokenizer is not an object");
  const std::string type = j.value("type", std::string());
  const std::string where = file + ": pre_tokenizer " + type;
  if (type == "ByteLevel") return byteLevel(j, where);
  if (type == "Metaspace") return metaspace(j, where);
  if (type == "Sequence") return sequence(j, file, where);
  if (type == "Split") {
    return splitWith(HfPattern::fromJson(j.value("pattern", nlohmann::json()), where),
                     splitBehaviorFromJson(j.value("behavior", nlohmann::json()), where), j.value("invert", false));
  }
  if (type == "Digits") {
    const bool individual = j.value("individual_digits", false);
    return splitWith(HfPattern::ofChars([](char32_t c) {
                       const int k = static_cast<int>(unicode::category(c));
                       return k >= static_cast<int>(unicode::Category::Nd) &&
                              k <= static_cast<int>(unicode::Category::No);
                     }),
                     individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
  }
  if (type == "BertPreTokenizer" || type == "Punctuation") {
    // Rust's char::is_ascii_punctuation or a Unicode P* category.
    HfPattern punct = HfPattern::ofChars(
        [](char32_t c) { return (c < 0x80 && std::ispunct(static_cast<int>(c))) || unicode::isPunctuation(c); });
    if (type == "Punctuation")
      return splitWith(punct, splitBehaviorFromJson(j.value("behavior", nlohmann::json("Isolated")), where));
    HfPreTokenizer spaces = splitWith(HfPattern::ofChars(unicode::isWhitespace), SplitBehavior::Removed);
    HfPreTokenizer puncts = splitWith(punct, SplitBehavior::Isolated);
    return [spaces, puncts](std::vector<NormalizedText>& pieces) {
      spaces(pieces);
      puncts(pieces);
    };
  }
  if (type == "WhitespaceSplit") return splitWith(HfPattern::ofChars(unicode::isWhitespace), SplitBehavior::Removed);
  if (type == "Whitespace")
    return splitWith(HfPattern::fromJson({{"Regex", R"(\w+|[^\w\s]+)"}}, where), SplitBehavior::Removed, true);
  throw InputError(file + ": pre_tokenizer type \"" + type + "\" is not supported");
}

}  // namespace attnlab
