// Times T5-style Unigram tokenization two ways on the same 100 KB of mixed text (English, accented
// Latin, full-width forms, CJK, emoji): the tokenizer.json engine (Unigram model + Precompiled normalizer
// per grapheme cluster, hf_tokenizer.h) on tests/reference/tokenizers/spm/t5like.json, and Debian's
// libsentencepiece (sentencepiece_tokenizer.h) on the t5like.model it was made from. Wall-clock medians
// of 7 runs; the ratio is what to quote.
#include <cstdio>
#include <string>

#include "bench/bench_util.h"
#include "core/base/json_file.h"
#include "core/text/hf_tokenizer.h"
#include "core/text/sentencepiece_tokenizer.h"

using namespace attnlab;

int main() {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/tests/reference/tokenizers/spm/";
  const std::string paragraph =
      "The attention head looks back at earlier tokens and weighs them. "
      "Café naïve résumé, crème brûlée; "
      "ＡＢＣ ｆｕｌｌ ｗｉｄｔｈ １２３ — "
      "東京の注意力机制 模型 日本語テキスト 한국어 "
      "😀 👍🏽 🇫🇷 ½ ™.\n";
  std::string text;
  while (text.size() < 100000) text += paragraph;
  const auto hf = HfTokenizer::fromJson(readJsonFile(dir + "t5like.json"), nlohmann::json::object(), "t5like.json");
  const auto spm = SentencePieceTokenizer::fromFile(dir + "t5like.model", {});
  std::size_t nHf = 0, nSpm = 0;
  const double msHf = bench::medianOfRuns(7, [&] { nHf = hf->encode(text, false).tokens.size(); });
  const double msSpm = bench::medianOfRuns(7, [&] { nSpm = spm->encode(text, false).tokens.size(); });
  std::printf("%-36s %10s %12s %10s\n", "encoder", "tokens", "encode ms", "MB/s");
  std::printf("%-36s %10zu %12.1f %10.2f\n", "tokenizer.json (Unigram+Precompiled)", nHf, msHf,
              text.size() / msHf / 1000.0);
  std::printf("%-36s %10zu %12.1f %10.2f\n", "libsentencepiece (t5like.model)", nSpm, msSpm,
              text.size() / msSpm / 1000.0);
  std::printf("ratio tokenizer.json / libsentencepiece: %.2f\n", msHf / msSpm);
}
