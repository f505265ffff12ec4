// libFuzzer target: GPT-2's byte-level BPE. Even first byte: the rest is text for the real GPT-2
// tokenizer, whose byte spans must tile the text exactly. Odd first byte: the rest is
// "vocab.json\0merges.txt" for a tokenizer built from fuzzed files, which must load or throw InputError.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/bpe_tokenizer.h"

using namespace attnlab;

namespace {

const BpeTokenizer& gpt2() {
  static const BpeTokenizer t = [] {
    const std::string dir = ATTNLAB_FIXTURES "/lm-buddy/fake_gpt2";
    BpeOptions o;
    o.specialTokens = {"<|endoftext|>"};
    return BpeTokenizer::fromFiles(readTextFile(dir + "/vocab.json"), "vocab.json", readTextFile(dir + "/merges.txt"),
                                   "merges.txt", o);
  }();
  return t;
}

void checkTiling(const TokenizedText& t, std::size_t size) {
  std::size_t pos = 0;
  for (const Token& tok : t.tokens) {
    if (static_cast<std::size_t>(tok.byteBegin) != pos || tok.byteEnd <= tok.byteBegin) std::abort();
    if (tok.u16Begin > tok.u16End) std::abort();
    pos = static_cast<std::size_t>(tok.byteEnd);
  }
  if (pos != size || t.tokens.size() != t.ids.size()) std::abort();
}

}  // namespace

// Loading the real vocabulary takes seconds under ASan: do it before the per-input timeout starts.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpt2();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    checkTiling(gpt2().encode(rest, true), rest.size());
    return 0;
  }
  const std::size_t split = rest.find('\0');
  try {
    const BpeTokenizer t =
        BpeTokenizer::fromFiles(rest.substr(0, split), "vocab.json",
                                split == std::string::npos ? "" : rest.substr(split + 1), "merges.txt", {});
    t.encode(rest, true);
  } catch (const InputError&) {
  }
  return 0;
}
