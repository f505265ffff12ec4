#pragma once
// The "model" section of tokenizer.json: BPE (with byte fallback, unknown-token fusing, ignore_merges,
// subword prefix/suffix), WordPiece and Unigram (T5, ALBERT, XLNet… : Viterbi over scored pieces, byte
// fallback), cutting one pre-tokenized piece into vocabulary ids. WordLevel is refused by name.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

/// One token of a piece: its id and the piece's characters [begin, end) it covers.
struct ModelToken {
  int id;
  std::size_t begin, end;
};

struct HfVocab {
  std::unordered_map<std::string, int> ids;
  std::vector<std::string> tokens;  ///< by id; "" for unused ids
  int lookup(const std::string& s) const {
    const auto it = ids.find(s);
    return it == ids.end() ? -1 : it->second;
  }
};

class HfTokenModel {
 public:
  virtual ~HfTokenModel() = default;
  virtual void tokenize(const std::u32string& piece, std::vector<ModelToken>& out) const = 0;
  HfVocab vocab;
};

/// A token id as a file may write it: an integer in [0, 10 000 000] (larger means a damaged file).
inline bool validId(const nlohmann::json& id) {
  return id.is_number_integer() && id.get<std::int64_t>() >= 0 && id.get<std::int64_t>() <= 10'000'000;
}

/// Throws InputError naming `file` and the problem (unsupported type, merge naming a missing token, …).
std::unique_ptr<HfTokenModel> makeTokenModel(const nlohmann::json& model, const std::string& file);

}  // namespace attnlab
