#pragma once
// tokenizer.json "normalizer" and "pre_tokenizer" sections as functions over NormalizedText, each
// computing what Hugging Face's tokenizers computes (alignments included). Unsupported components are
// refused by name: InputError("<file>: normalizer type \"X\" is not supported").
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text/hf_normalized.h"

namespace attnlab {

using HfNormalizer = std::function<void(NormalizedText&)>;
/// Replaces the list of pieces by their finer pieces (a PreTokenizedString's splits).
using HfPreTokenizer = std::function<void(std::vector<NormalizedText>&)>;

/// null → an empty function (no normalization).
HfNormalizer makeNormalizer(const nlohmann::json& j, const std::string& file);
/// null → an empty function (the whole text is one piece).
HfPreTokenizer makePreTokenizer(const nlohmann::json& j, const std::string& file);

}  // namespace attnlab
