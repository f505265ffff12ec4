// libFuzzer target: BERT's normaliser and WordPiece. Even first byte: the rest is text for the real
// bert-base-uncased vocabulary; spans must be ordered and inside the text. Odd first byte: the rest is a
// tokenizer.json document, which must load or throw InputError, and then tokenize its own bytes.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/wordpiece_tokenizer.h"

using namespace attnlab;

namespace {

const WordPieceTokenizer& bert() {
  static const WordPieceTokenizer t = [] {
    WordPieceOptions o;
    o.specialTokens = {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"};
    return WordPieceTokenizer::fromVocabTxt(readTextFile(ATTNLAB_FIXTURES "/lm-buddy/bert_tiniest/vocab.txt"),
                                            "vocab.txt", o);
  }();
  return t;
}

}  // namespace

// Loading the real vocabulary takes seconds under ASan: do it before the per-input timeout starts.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  bert();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    const TokenizedText t = bert().encode(rest, true);
    int last = 0;
    for (const Token& tok : t.tokens) {
      if (tok.byteBegin < last || tok.byteEnd < tok.byteBegin || tok.byteEnd > static_cast<int>(rest.size()))
        std::abort();
      last = tok.byteBegin;
    }
    if (t.tokens.size() != t.ids.size() || t.ids.size() < 2) std::abort();
    return 0;
  }
  try {
    const WordPieceTokenizer t =
        WordPieceTokenizer::fromTokenizerJson(parseJson(rest, "tokenizer.json"), "tokenizer.json");
    t.encode(rest, true);
  } catch (const InputError&) {
  }
  return 0;
}
