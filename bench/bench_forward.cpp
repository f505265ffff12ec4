// Forward-pass speed of the built-in model (issue: live attention explorer).
// Targets: default model (d 64, 4 heads, 2 layers) at 6–16 tokens ≤ 0.1 ms; 256 tokens with every
// trace kept ≤ 20 ms. Tokenization and embedding are included: that is what an edit costs.
#include <omp.h>

#include <cstdio>
#include <string>

#include "bench/bench_util.h"
#include "core/model/builtin_model.h"

using namespace attnlab;

namespace {

std::string sentenceOf(int n) {
  static const char* words[] = {"the", "cat", "walks", "on", "street", "mary", "gave", "roses", "to", "susan"};
  std::string s;
  for (int i = 0; i < n; ++i) s += std::string(i ? " " : "") + words[i % 10] + (i >= 10 ? std::to_string(i) : "");
  return s;
}

}  // namespace

int main() {
  std::printf("threads: OpenMP max %d\n", omp_get_max_threads());
  const BuiltinModel model(ModelConfig{});
  for (int n : {6, 16, 64, 256}) {
    const TokenizedText text = model.tokenize(sentenceOf(n));
    Trace keep;
    const double ms = bench::medianMs([&] { keep = model.forward(text); });
    const std::string what = "default model forward, " + std::to_string(n) + " tokens (all traces)";
    bench::report(what.c_str(), ms, n <= 16 ? 0.1 : 20.0);
  }
  const double build = bench::medianMs([&] { BuiltinModel m(ModelConfig{}); }, 0.3, 5);
  bench::report("building the default model's weights (seed change)", build, 16.0);
  return 0;
}
