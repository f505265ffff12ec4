// `attnlab tokenize`: one text per line on standard input, one JSON object per line on standard
// output, {"ids": [...], "tokens": [...]}: the model's own token strings ("Ġcat", "##ing"), with the
// model's special tokens ([CLS] … [SEP], <|begin_of_text|>, <bos>) only when --special is given. Works on
// any checkpoint folder, or a folder with just tokenizer.json (+ tokenizer_config.json).
#include <iostream>
#include <string>

#include "app/cli_commands.h"
#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/hf_model.h"
#include "core/run/model_factory.h"
#include "core/train/shipped_models.h"
#include "core/train/tiny_checkpoint.h"

namespace attnlab::cli {

namespace {

/// A line of standard input longer than this is refused: `tokenize < /dev/zero` read 2 GB into one line.
constexpr std::size_t kMaxLineBytes = std::size_t(64) << 20;

/// Reads the next line of `in` (without its '\n') into `line`; false at the end of the input. Throws InputError
/// when a line passes kMaxLineBytes.
bool readBoundedLine(std::istream& in, std::string& line) {
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) return !line.empty();
    if (c == '\n') return true;
    if (line.size() >= kMaxLineBytes)
      throw InputError("a line of standard input is longer than " + std::to_string(kMaxLineBytes >> 20) +
                       " MB (one text per line is expected)");
    line.push_back(static_cast<char>(c));
  }
}

}  // namespace

int runTokenize(const Args& args) {
  const Params p = paramsFromArgs(args);
  // A checkpoint folder: only its tokenizer is read (a 1B model's weights are not needed to cut text); a
  // folder with just tokenizer.json works too.
  std::unique_ptr<TextTokenizer> folderTokenizer;
  std::shared_ptr<const Model> model;
  if (!p.modelDir.empty() && !isShippedModelName(p.modelDir) && !isTinyCheckpoint(p.modelDir))
    folderTokenizer = loadFolderTokenizer(p.modelDir);
  else
    model = makeModel(p);
  const auto* hf = dynamic_cast<const HfModel*>(model.get());
  const TextTokenizer* tokenizer = folderTokenizer ? folderTokenizer.get() : hf ? &hf->tokenizer() : nullptr;
  const bool special = args.has("special");
  std::string line;
  while (readBoundedLine(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // The built-in model has no vocabulary and no special tokens: its words, and no ids.
    const TokenizedText t = tokenizer ? tokenizer->encode(line, special) : model->tokenize(line);
    nlohmann::json j{{"ids", t.ids}, {"tokens", nlohmann::json::array()}};
    for (const Token& tok : t.tokens) j["tokens"].push_back(tok.text);
    // Token strings are vocabulary entries (valid UTF-8); replace rather than throw if one is not.
    std::cout << jsonText(j) << "\n";
  }
  std::cout.flush();
  return 0;
}

}  // namespace attnlab::cli
