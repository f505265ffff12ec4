// The normalizers of tokenizer.json; the pre-tokenizers are in hf_pretokenizers.cpp.
#include "core/text/hf_normalizers.h"
#include "core/base/errors.h"
#include "core/text/hf_precompiled.h"
#include "core/text/unicode_norm.h"
#include "core/text/unicode_props.h"

#include <memory>

namespace attnlab {
namespace {

void normalForm(NormalizedText& t, unicode::NormalForm form) {
  std::u32string out;
  std::vector<int> origin;
  unicode::normalize(t.chars, form, out, origin);
  std::vector<ByteSpan> align(out.size());
  for (std::size_t k = 0; k < out.size(); ++k) align[k] = t.align[static_cast<std::size_t>(origin[k])];
  t.chars = std::move(out);
  t.align = std::move(align);
}

void lowercase(NormalizedText& t) {
  NormalizedText out;
  for (std::size_t k = 0; k < t.chars.size(); ++k) {
    const std::size_t before = out.chars.size();
    unicode::appendLower(out.chars, t.chars[k]);
    out.align.insert(out.align.end(), out.chars.size() - before, t.align[k]);
  }
  t = std::move(out);
}

void strip(NormalizedText& t, bool left, bool right) {
  std::size_t b = 0, e = t.chars.size();
  while (left && b < e && unicode::isWhitespace(t.chars[b])) ++b;
  while (right && e > b && unicode::isWhitespace(t.chars[e - 1])) --e;
  t = t.slice(b, e);
}

/// Drops the non-spacing marks (StripAccents; meant to follow NFD).
void stripAccentsFrom(NormalizedText& t) {
  NormalizedText out;
  for (std::size_t k = 0; k < t.chars.size(); ++k)
    if (unicode::category(t.chars[k]) != unicode::Category::Mn) {
      out.chars += t.chars[k];
      out.align.push_back(t.align[k]);
    }
  t = std::move(out);
}

/// BertNormalizer: drop NUL, U+FFFD and control characters, turn whitespace into spaces, pad CJK
/// ideographs with spaces (all three take the ideograph's span), strip accents, lower-case.
void bertNormalize(NormalizedText& t, bool clean, bool chinese, bool stripAccents, bool lower) {
  NormalizedText out;
  for (std::size_t k = 0; k < t.chars.size(); ++k) {
    char32_t c = t.chars[k];
    if (clean) {
      const bool control = c != U'\t' && c != U'\n' && c != U'\r' && unicode::isOther(c);
      if (c == 0 || c == 0xFFFD || control) continue;
      if (unicode::isWhitespace(c)) c = U' ';
    }
    const bool pad = chinese && unicode::isCjkIdeograph(c);
    out.chars += pad ? std::u32string{U' ', c, U' '} : std::u32string(1, c);
    out.align.insert(out.align.end(), pad ? 3 : 1, t.align[k]);
  }
  t = std::move(out);
  if (stripAccents) {
    normalForm(t, unicode::NormalForm::NFD);
    stripAccentsFrom(t);
  }
  if (lower) lowercase(t);
}

std::string stringField(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_string()) throw InputError(where + " needs a string \"" + key + "\"");
  return j[key].get<std::string>();
}

}  // namespace

HfNormalizer makeNormalizer(const nlohmann::json& j, const std::string& file) {
  if (j.is_null()) return {};
  if (!j.is_object()) throw InputError(file + ": normalizer is not an object");
  const std::string type = j.value("type", std::string());
  const std::string where = file + ": normalizer " + type;
  using unicode::NormalForm;
  if (type == "NFC") return [](NormalizedText& t) { normalForm(t, NormalForm::NFC); };
  if (type == "NFD") return [](NormalizedText& t) { normalForm(t, NormalForm::NFD); };
  if (type == "NFKC") return [](NormalizedText& t) { normalForm(t, NormalForm::NFKC); };
  if (type == "NFKD") return [](NormalizedText& t) { normalForm(t, NormalForm::NFKD); };
  if (type == "Lowercase") return lowercase;
  if (type == "StripAccents") return stripAccentsFrom;
  if (type == "BertNormalizer") {
    const bool clean = j.value("clean_text", true), chinese = j.value("handle_chinese_chars", true);
    const bool lower = j.value("lowercase", true);
    const nlohmann::json strip = j.value("strip_accents", nlohmann::json());
    const bool accents = strip.is_boolean() ? strip.get<bool>() : lower;  // null: follows lowercase
    return [=](NormalizedText& t) { bertNormalize(t, clean, chinese, accents, lower); };
  }
  if (type == "Strip") {
    const bool left = j.value("strip_left", true), right = j.value("strip_right", true);
    return [left, right](NormalizedText& t) { strip(t, left, right); };
  }
  if (type == "Prepend") {
    const std::u32string s = toU32(stringField(j, "prepend", where));
    return [s](NormalizedText& t) { t.prepend(s); };
  }
  if (type == "Replace") {
    const HfPattern pattern = HfPattern::fromJson(j.value("pattern", nlohmann::json()), where);
    const std::u32string content = toU32(stringField(j, "content", where));
    return [pattern, content](NormalizedText& t) { replaceText(t, pattern, content); };
  }
  if (type == "Precompiled") {
    const nlohmann::json map = j.value("precompiled_charsmap", nlohmann::json());
    if (!map.is_string()) throw InputError(where + " needs a base64 string \"precompiled_charsmap\"");
    const auto charsmap = std::make_shared<const PrecompiledCharsmap>(PrecompiledCharsmap::fromBase64(map, where));
    return [charsmap](NormalizedText& t) { charsmap->normalize(t); };
  }
  if (type == "Sequence") {
    const nlohmann::json list = j.value("normalizers", nlohmann::json());
    if (!list.is_array()) throw InputError(where + " has no \"normalizers\" list");
    std::vector<HfNormalizer> parts;
    for (const nlohmann::json& n : list)
      if (HfNormalizer f = makeNormalizer(n, file)) parts.push_back(std::move(f));
    return [parts](NormalizedText& t) {
      for (const HfNormalizer& f : parts) f(t);
    };
  }
  throw InputError(file + ": normalizer type \"" + type + "\" is not supported");
}

}  // namespace attnlab
