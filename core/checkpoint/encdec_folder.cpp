#include "core/checkpoint/encdec_folder.h"

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/sentencepiece_tokenizer.h"
#include "core/text/tokenizer_loader.h"

namespace attnlab {
namespace {

void checkVocabulary(const TextTokenizer& t, int modelVocab, const std::string& dir, const char* side,
                     const char* field) {
  if (t.vocabSize() > modelVocab)
    throw InputError(dir + ": the " + side + " tokenizer has " + std::to_string(t.vocabSize()) +
                     " tokens, but config.json's " + field + " is " + std::to_string(modelVocab) +
                     ": the tokenizer does not belong to these weights");
}

}  // namespace

EncDecFolder openEncDecFolder(const std::string& dir) {
  EncDecFolder f;
  f.model = EncDecModel::open(dir);
  const EncDecConfig& c = f.model->config();
  // Marian's own files first (a converted folder may also carry a tokenizer.json, whose one vocabulary would not
  // tell the sides apart).
  if (c.family == EncDecFamily::Marian && fileExists(dir + "/source.spm")) {
    MarianTokenizers both = loadMarianTokenizers(dir);  // each file read once
    f.source = std::move(both.source);
    f.target = std::move(both.target);
  } else {
    f.source = loadTokenizerForFolder(dir);
    f.target = loadTokenizerForFolder(dir);
  }
  checkVocabulary(*f.source, c.vocabSize, dir, "source", "vocab_size");
  checkVocabulary(*f.target, c.decoderVocabSize, dir, "target",
                  c.family == EncDecFamily::Marian ? "decoder_vocab_size" : "vocab_size");
  return f;
}

}  // namespace attnlab
