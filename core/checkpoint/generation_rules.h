#pragma once
// The generation settings a Hugging Face encoder–decoder folder carries (generation_config.json, else config.json)
// that change which token greedy or sampled decoding picks: the logits processors transformers' generate() applies
// before choosing. Without them Translate could write a token Hugging Face never would: every opus-mt config has
// bad_words_ids [[pad]] (its pad id is also the decoder's start token), BART's has no_repeat_ngram_size 3 and a
// forced <s>/</s>. Beam search (num_beams) is read only to be named: this program decodes greedily or by sampling.
#include <string>
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

struct GenerationRules {
  /// bad_words_ids: token sequences never completed (one id: never generated); sequences equal to [eos] are dropped,
  /// as transformers does.
  std::vector<std::vector<int>> badWords;
  int forcedBos = -1;     ///< forced_bos_token_id: the first generated token (−1: none)
  int forcedEos = -1;     ///< forced_eos_token_id: the token at the last position max_length allows (−1: none)
  int minLength = 0;      ///< min_length: eos is banned while the decoder input (start token included) is shorter
  int maxLength = 0;      ///< max_length (start token included; 0: not given)
  int noRepeatNgram = 0;  ///< no_repeat_ngram_size: no n-gram of the decoder input appears twice (0: off)
  int numBeams = 1;       ///< num_beams: what Hugging Face's generate() would search with (not reproduced here)
  std::string file;       ///< the file the rules were read from ("generation_config.json" / "config.json"), or empty

  /// True when no rule changes a token choice (numBeams alone changes nothing here).
  bool empty() const {
    return badWords.empty() && forcedBos < 0 && forcedEos < 0 && minLength == 0 && noRepeatNgram == 0;
  }
};

/// The rules of folder `dir`: its generation_config.json when present (transformers reads that file instead of
/// config.json's generation fields), else `config`'s (config.json's parsed object, path `configName`). Ids are checked
/// against the decoder's vocabulary `vocab`; `eosId` drops [eos] from the bad words. Throws InputError naming the
/// file and the field for a malformed value (a bad_words_ids that is not a list of lists of ids, an id out of range,
/// a negative length).
GenerationRules readGenerationRules(const std::string& dir, const std::string& configName, int vocab, int eosId);

/// Applies the rules to next-token `logits` [vocab] after decoder input `input` (decoder_start_token_id first, then
/// every token so far: transformers' input_ids, whose length is its cur_len), in transformers' order: banned tokens
/// become −∞; a forced token leaves every other one −∞. `maxLength` is the length limit of this decoding (max_length,
/// capped by the positions and by a Translate budget of N new tokens: 1 + N), 0 for none: forced eos applies when the
/// input is one shorter.
void applyGenerationRules(const GenerationRules& rules, const std::vector<int>& input, int eosId, int maxLength,
                          Vec& logits);

/// The length limit (transformers' max_length, start token included) forced eos counts to, for a decoding of at most
/// `maxNewTokens` new tokens (≤ 0: no budget) by a decoder of `positions` positions (≤ 0: none): the smallest of
/// max_length, 1 + maxNewTokens (what transformers makes of max_new_tokens) and positions + 1 (the last token made is
/// never read back, so a full decoder input of `positions` tokens still gives one more); 0 when none is given.
int generationLengthLimit(const GenerationRules& rules, int positions, int maxNewTokens);

/// One line naming the rules for the model card ("bad words [58100] · forced eos 0 · Hugging Face: 4 beams, here
/// greedy"), empty when there are none.
std::string describeGenerationRules(const GenerationRules& rules);

}  // namespace attnlab
