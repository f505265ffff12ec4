// Rung 7 (the built-in model as an encoder–decoder, core/model/builtin_encdec.h) against rung 6 on as many words: a
// 30-word source + a 30-word target through the encoder, the decoder and its cross-attention, vs rung 6 on the 60
// words in one text. Default model (d 64, 4 heads, 2 layers), every map kept, embedding included (what an edit costs).
// The two are measured in alternating rounds in the same run, and the ratio is the median of the rounds' ratios: the
// clock and the other processes on the machine move both alike.
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/model/builtin_encdec.h"
#include "core/run/builtin_two_text.h"
#include "core/run/encdec_run.h"

using namespace attnlab;

namespace {

std::vector<std::string> wordsOf(int n, int offset) {
  static const char* words[] = {"the", "cat", "walks", "on", "street", "mary", "gave", "roses", "to", "susan"};
  std::vector<std::string> w;
  for (int i = 0; i < n; ++i) w.push_back(words[(i + offset) % 10] + std::to_string(i));
  return w;
}

std::string join(const std::vector<std::string>& w) {
  std::string s;
  for (const std::string& x : w) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

int main() {
  ModelConfig six;  // rung 6, the defaults
  ModelConfig seven = six;
  seven.mode = Mode::EncDec;
  const BuiltinModel rung6(six);
  const BuiltinEncDec rung7(seven);
  const std::vector<std::string> source = wordsOf(30, 0), target = wordsOf(30, 3);
  std::vector<std::string> both = source;
  both.insert(both.end(), target.begin(), target.end());
  const TokenizedText sixty = rung6.tokenize(join(both));
  const TokenizedText thirtyA = rung6.tokenize(join(source)), thirtyB = rung6.tokenize(join(target));
  if (sixty.tokens.size() != 60) return std::printf("expected 60 tokens, got %zu\n", sixty.tokens.size()), 1;

  // The window's path too: runEncDecPipeline (tokenizing both texts, handing each stack to its side).
  Params p;
  p.model = seven;
  p.sentence = join(source);
  p.target = join(target);
  const auto model = std::make_shared<const BuiltinTwoTextModel>(seven, true);

  // A yardstick for the passes' fixed costs: rung 6 on each 30-word text alone (as many layer passes as rung 7's
  // encoder and decoder, without the cross-attention).
  std::vector<double> ms6, ms7, msPipe, msTwo, ratio, ratioPipe, ratioTwo;
  for (int round = 0; round < 7; ++round) {
    Trace keep6;
    EncDecTrace keep7;
    PipelineResult keepPipe;
    ms6.push_back(bench::medianMs([&] { keep6 = rung6.forward(sixty); }, 0.3));
    ms7.push_back(bench::medianMs([&] { keep7 = rung7.forward(source, target); }, 0.3));
    msPipe.push_back(bench::medianMs([&] { keepPipe = runEncDecPipeline(p, model); }, 0.3));
    msTwo.push_back(bench::medianMs([&] { keep6 = rung6.forward(thirtyA), keep6 = rung6.forward(thirtyB); }, 0.3));
    ratio.push_back(ms7.back() / ms6.back());
    ratioTwo.push_back(msTwo.back() / ms6.back());
    ratioPipe.push_back(msPipe.back() / ms6.back());
  }
  std::printf("rung 6 forward, 60 words (one text)                   median %.4f ms\n", bench::median(ms6));
  std::printf("rung 7 forward, 30-word source + 30-word target       median %.4f ms   ratio to rung 6 %.2f\n",
              bench::median(ms7), bench::median(ratio));
  std::printf("rung 6 forward, the two 30-word texts one after the other median %.4f ms   ratio to rung 6 %.2f\n",
              bench::median(msTwo), bench::median(ratioTwo));
  std::printf("rung 7 through runEncDecPipeline (the window's path)  median %.4f ms   ratio to rung 6 %.2f\n",
              bench::median(msPipe), bench::median(ratioPipe));
  return 0;
}
