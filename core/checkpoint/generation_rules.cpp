#include "core/checkpoint/generation_rules.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/config_fields.h"

namespace attnlab {

namespace {

// transformers' bad_words_ids: a list of lists of token ids (each list one sequence never to complete).
std::vector<std::vector<int>> readBadWords(const nlohmann::json& j, const std::string& name, int vocab, int eosId) {
  std::vector<std::vector<int>> out;
  if (!j.contains("bad_words_ids") || j["bad_words_ids"].is_null()) return out;
  const nlohmann::json& list = j["bad_words_ids"];
  const std::string what = name + ": bad_words_ids ";
  if (!list.is_array()) throw InputError(what + "is not a list of token-id lists (e.g. [[58100]])");
  for (const nlohmann::json& seq : list) {
    if (!seq.is_array() || seq.empty())
      throw InputError(what + "holds " + seq.dump() + ", not a non-empty list of token ids (e.g. [[58100]])");
    std::vector<int> ids;
    for (const nlohmann::json& id : seq) {
      if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= vocab)
        throw InputError(what + "holds " + id.dump() + ": not a token id of the decoder's vocabulary (0 … " +
                         std::to_string(vocab - 1) + ")");
      ids.push_back(id.get<int>());
    }
    if (ids.size() == 1 && ids[0] == eosId) continue;  // transformers drops [eos]: it would forbid ending
    out.push_back(std::move(ids));
  }
  return out;
}

bool endsWith(const std::vector<int>& input, const std::vector<int>& seq, size_t count) {
  if (count > input.size()) return false;
  return std::equal(seq.begin(), seq.begin() + static_cast<std::ptrdiff_t>(count),
                    input.end() - static_cast<std::ptrdiff_t>(count));
}

void force(Vec& logits, int id) {
  const float kept = logits(id);
  logits.setConstant(-std::numeric_limits<float>::infinity());
  // transformers sets the forced score to 0; any finite value gives the same choice and a probability of 1.
  logits(id) = std::isfinite(kept) ? kept : 0.0f;
}

}  // namespace

GenerationRules readGenerationRules(const std::string& dir, const std::string& configName, int vocab, int eosId) {
  const std::filesystem::path generation = std::filesystem::path(dir) / "generation_config.json";
  std::error_code ec;
  const bool own = std::filesystem::is_regular_file(generation, ec);
  const std::string name = own ? generation.string() : configName;
  const nlohmann::json j = readJsonFile(name);
  GenerationRules r;
  if (!j.is_object()) return r;  // config.json's shape is checked by its own reader
  r.file = own ? "generation_config.json" : "config.json";
  r.badWords = readBadWords(j, name, vocab, eosId);
  r.forcedBos = intFieldOr(j, "forced_bos_token_id", -1, name, -1, vocab - 1);
  r.forcedEos = intFieldOr(j, "forced_eos_token_id", -1, name, -1, vocab - 1);
  r.minLength = intFieldOr(j, "min_length", 0, name, 0, kMaxConfigDim);
  r.maxLength = intFieldOr(j, "max_length", 0, name, 0, kMaxConfigDim);
  r.noRepeatNgram = intFieldOr(j, "no_repeat_ngram_size", 0, name, 0, kMaxConfigDim);
  r.numBeams = intFieldOr(j, "num_beams", 1, name, 1, kMaxConfigDim);
  return r;
}

void applyGenerationRules(const GenerationRules& rules, const std::vector<int>& input, int eosId, int maxLength,
                          Vec& logits) {
  const float minusInf = -std::numeric_limits<float>::infinity();
  const size_t curLen = input.size();
  // transformers' order (_get_logits_processor): min length, no repeated n-grams, bad words, forced bos, forced eos.
  if (eosId >= 0 && eosId < logits.size() && static_cast<int>(curLen) < rules.minLength) logits(eosId) = minusInf;
  const size_t n = static_cast<size_t>(rules.noRepeatNgram);
  if (n > 0 && curLen + 1 >= n) {
    // Every n-gram of the input whose first n − 1 tokens are the input's last n − 1 bans its last token.
    const size_t prefix = n - 1;
    for (size_t start = 0; start + n <= curLen; ++start)
      if (std::equal(input.begin() + static_cast<std::ptrdiff_t>(start),
                     input.begin() + static_cast<std::ptrdiff_t>(start + prefix),
                     input.end() - static_cast<std::ptrdiff_t>(prefix)))
        logits(input[start + prefix]) = minusInf;
  }
  for (const std::vector<int>& seq : rules.badWords)
    if (endsWith(input, seq, seq.size() - 1)) logits(seq.back()) = minusInf;
  if (rules.forcedBos >= 0 && curLen == 1) force(logits, rules.forcedBos);
  if (rules.forcedEos >= 0 && maxLength > 0 && static_cast<int>(curLen) == maxLength - 1)
    force(logits, rules.forcedEos);
}

int generationLengthLimit(const GenerationRules& rules, int positions, int maxNewTokens) {
  int limit = rules.maxLength;
  const auto take = [&limit](int l) { limit = limit > 0 ? std::min(limit, l) : l; };
  if (maxNewTokens > 0) take(1 + maxNewTokens);
  if (positions > 0) take(positions + 1);
  return limit;
}

std::string describeGenerationRules(const GenerationRules& rules) {
  std::vector<std::string> parts;
  if (!rules.badWords.empty()) {
    std::string b = "bad words ";
    for (size_t i = 0; i < rules.badWords.size() && i < 4; ++i) {
      b += i ? " " : "";
      b += "[";
      for (size_t k = 0; k < rules.badWords[i].size(); ++k) b += (k ? ", " : "") + std::to_string(rules.badWords[i][k]);
      b += "]";
    }
    if (rules.badWords.size() > 4) b += " … (" + std::to_string(rules.badWords.size()) + ")";
    parts.push_back(b);
  }
  if (rules.forcedBos >= 0) parts.push_back("forced first token " + std::to_string(rules.forcedBos));
  if (rules.forcedEos >= 0) parts.push_back("forced eos " + std::to_string(rules.forcedEos) + " at the length limit");
  if (rules.minLength > 0) parts.push_back("min length " + std::to_string(rules.minLength));
  if (rules.noRepeatNgram > 0) parts.push_back("no repeated " + std::to_string(rules.noRepeatNgram) + "-grams");
  if (rules.numBeams > 1)
    parts.push_back("Hugging Face searches " + std::to_string(rules.numBeams) + " beams; here greedy or sampled");
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? " · " : "") + parts[i];
  return out;
}

}  // namespace attnlab
