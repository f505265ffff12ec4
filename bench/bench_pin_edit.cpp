// Typing into a 3,000-token text with pins (issue 31 review): MainWindow::edit carries the pins through every
// keystroke (carryPinsThroughEdit), which tokenizes the old and the new text with the shown model. While typing
// outruns the runs the shown result is an older text, so both were tokenized on every key; the last tokenization is now
// kept, and the next key's old text is found there. Prints the median ms per keystroke with the cache forgotten before
// each key (the old cost: two tokenizations) and kept (one), and one tokenization of the text alone for reference.
// Usage: bench_pin_edit [GPT-2 checkpoint folder]   (default tests/fixtures/lm-buddy/fake_gpt2: the 50,257 merges)
#include <cstdio>
#include <string>

#include "bench/bench_util.h"
#include "core/checkpoint/checkpoint.h"
#include "ui/views/common/token_selection.h"

using namespace attnlab;
using namespace attnlab::ui;

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "tests/fixtures/lm-buddy/fake_gpt2";
  const std::shared_ptr<const Model> model = loadCheckpoint(dir);
  const char* words[] = {"the ", "cat ", "sat ", "on ", "a ", "mat, ", "and ", "thought ", "about ", "lunch. "};
  std::string text;
  for (int i = 0; model->tokenize(text).ids.size() < 3000; ++i) text += words[(i * 7) % 10];
  Params p;
  p.modelDir = dir;
  p.sentence = text;
  auto run = std::make_shared<PipelineResult>();
  run->model = model;
  run->text = model->tokenize(text);
  auto shown = std::make_shared<ComputeResult>();
  shown->params = p;
  shown->run = run;
  const int n = static_cast<int>(run->text.tokens.size());
  p.selection.pinned = {5, n / 2, n - 10};
  std::printf("text: %zu bytes, %d tokens, pins at %d, %d, %d\n", text.size(), n, 5, n / 2, n - 10);

  // Keystrokes typed in the middle of the text, none of them run yet (the shown result keeps the first text).
  const auto typeKeys = [&](bool forget) {
    std::string before = text;
    Params q = p;
    for (int k = 0; k < 20; ++k) {
      if (forget) forgetPinTokenization();
      Params edited = q;
      edited.sentence = before;
      edited.sentence.insert(before.size() / 2, 1, 'x');
      carryPinsThroughEdit(edited, before, shown);
      before = edited.sentence;
      q = edited;
    }
  };
  const double tokenize = bench::medianMs([&] { model->tokenize(text); });
  const double without = bench::medianMs([&] { typeKeys(true); }, 2.0, 5) / 20;
  const double with = bench::medianMs([&] { typeKeys(false); }, 2.0, 5) / 20;
  std::printf("%-34s %8.2f ms\n", "one tokenization of the text", tokenize);
  std::printf("%-34s %8.2f ms  (%.2f tokenizations)\n", "per key, nothing kept (before)", without, without / tokenize);
  std::printf("%-34s %8.2f ms  (%.2f tokenizations)\n", "per key, last tokenization kept", with, with / tokenize);
  std::printf("%-34s %8.2f\n", "ratio before / now", without / with);
  return 0;
}
