#include "core/text/tokenizer.h"

#include <array>

#include "core/base/errors.h"
#include "core/text/text_offsets.h"

namespace attnlab {
namespace {

int specialId(const nlohmann::json& name, const std::string& file,
              const std::function<int(const std::string&)>& lookup) {
  const std::string s = name.is_string() ? name.get<std::string>() : std::string();
  const int id = lookup(s);
  if (id < 0)
    throw InputError(file + ": post_processor names special token \"" + s + "\", which is not in the vocabulary");
  return id;
}

/// TemplateProcessing: lists of {"SpecialToken": {"id": "[CLS]"}} and {"Sequence": {"id": "A"}} items.
/// Fills the special ids before the first sequence, between sequences and after the last one.
void readTemplate(const nlohmann::json& items, const nlohmann::json& specials, const std::string& file,
                  std::vector<int>* parts[3]) {
  if (!items.is_array()) return;
  int part = 0;
  for (const nlohmann::json& item : items) {
    if (!item.is_object()) continue;
    if (item.contains("Sequence")) {
      part = std::min(part + 1, 2);
      continue;
    }
    if (!item.contains("SpecialToken") || !item["SpecialToken"].is_object()) continue;
    const nlohmann::json& name = item["SpecialToken"].value("id", nlohmann::json());
    const std::string key = name.is_string() ? name.get<std::string>() : std::string();
    if (!specials.is_object() || !specials.contains(key) || !specials[key].is_object() ||
        !specials[key].contains("ids") || !specials[key]["ids"].is_array())
      throw InputError(file + ": post_processor template uses special token \"" + key + "\" without ids");
    for (const nlohmann::json& id : specials[key]["ids"]) {
      if (!id.is_number_unsigned()) throw InputError(file + ": special token \"" + key + "\" has a non-integer id");
      if (id.get<std::uint64_t>() > 0x7FFFFFFF)
        throw InputError(file + ": special token \"" + key + "\" has an id out of range");
      parts[part]->push_back(id.get<int>());
    }
  }
}

}  // namespace

std::vector<TextSegment> splitOnAddedTokens(std::string_view text, const std::vector<AddedToken>& added) {
  std::array<std::vector<const AddedToken*>, 256> byFirstByte;
  for (const AddedToken& a : added)
    if (!a.content.empty()) byFirstByte[static_cast<unsigned char>(a.content[0])].push_back(&a);
  std::vector<TextSegment> out;
  std::size_t plainBegin = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const AddedToken* best = nullptr;
    for (const AddedToken* a : byFirstByte[static_cast<unsigned char>(text[pos])])
      if (text.compare(pos, a->content.size(), a->content) == 0 && (!best || a->content.size() > best->content.size()))
        best = a;
    if (!best) {
      ++pos;
      continue;
    }
    if (pos > plainBegin) out.push_back({plainBegin, pos, -1});
    out.push_back({pos, pos + best->content.size(), best->id});
    pos += best->content.size();
    plainBegin = pos;
  }
  if (text.size() > plainBegin) out.push_back({plainBegin, text.size(), -1});
  return out;
}

SpecialTemplate parsePostProcessor(const nlohmann::json& pp, const std::string& file,
                                   const std::function<int(const std::string&)>& lookup) {
  SpecialTemplate t;
  if (!pp.is_object()) return t;
  const std::string type = pp.value("type", std::string());
  if (type == "TemplateProcessing") {
    const nlohmann::json specials = pp.value("special_tokens", nlohmann::json::object());
    std::vector<int>* single[3] = {&t.prefix, &t.suffix, &t.suffix};
    readTemplate(pp.value("single", nlohmann::json()), specials, file, single);
    std::vector<int>* pair[3] = {&t.pairPrefix, &t.pairMiddle, &t.pairSuffix};
    readTemplate(pp.value("pair", nlohmann::json()), specials, file, pair);
  } else if (type == "BertProcessing" || type == "RobertaProcessing") {
    // {"cls": ["[CLS]", 101], "sep": ["[SEP]", 102]}: [CLS] A [SEP] ([SEP]) B [SEP]
    auto idOf = [&](const char* key) {
      const nlohmann::json& e = pp.value(key, nlohmann::json());
      if (!e.is_array() || e.size() != 2) throw InputError(file + ": post_processor has no valid \"" + key + "\"");
      return specialId(e[0], file, lookup);
    };
    const int cls = idOf("cls"), sep = idOf("sep");
    t.prefix = t.pairPrefix = {cls};
    t.suffix = t.pairSuffix = {sep};
    t.pairMiddle = type == "BertProcessing" ? std::vector<int>{sep} : std::vector<int>{sep, sep};
  } else if (type == "Sequence" && pp.contains("processors") && pp["processors"].is_array()) {
    for (const nlohmann::json& p : pp["processors"]) {
      SpecialTemplate s = parsePostProcessor(p, file, lookup);
      if (!s.prefix.empty() || !s.suffix.empty()) return s;
    }
  }
  return t;
}

void wrapWithSpecial(TokenizedText& t, const SpecialTemplate& tpl, const std::vector<std::string>& idToToken,
                     std::string_view text) {
  const Utf16Offsets offsets(text);
  auto special = [&](int id, std::size_t at) {
    const std::string s = id >= 0 && id < static_cast<int>(idToToken.size()) ? idToToken[id] : std::string();
    return offsets.token(s, at, at);
  };
  TokenizedText out;
  for (int id : tpl.prefix) {
    out.tokens.push_back(special(id, 0));
    out.ids.push_back(id);
  }
  out.tokens.insert(out.tokens.end(), t.tokens.begin(), t.tokens.end());
  out.ids.insert(out.ids.end(), t.ids.begin(), t.ids.end());
  for (int id : tpl.suffix) {
    out.tokens.push_back(special(id, text.size()));
    out.ids.push_back(id);
  }
  t = std::move(out);
}

std::string specialTokenContent(const nlohmann::json& entry) {
  if (entry.is_string()) return entry.get<std::string>();
  if (entry.is_object() && entry.contains("content") && entry["content"].is_string())
    return entry["content"].get<std::string>();
  return {};
}

}  // namespace attnlab
