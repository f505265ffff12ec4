// One generated token with the key/value cache (issue 16, "Generate"): target ≤ 25 ms per token on the
// GPT-2-small shape after a 64-token prompt; the SmolLM2-135M shape too. Reuses the random checkpoints
// that bench_gpt2 (/tmp/attnlab-bench-gpt2-small) and bench_decoder (/tmp/attnlab-bench-smollm2-135m-f32)
// write; run those first. Per token: the cached step (all layers + final norm + unembedding), the
// unembedding alone (vocab × d multiply-adds: it dominates at these shapes), and for comparison the full
// forward pass of the whole sequence + its last row's logits that the cache replaces.
#include <omp.h>

#include <Eigen/Core>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/gpt2_model.h"
#include "core/model/decode_session.h"

using namespace attnlab;

namespace {

void benchOne(const char* label, const std::string& dir, int promptTokens, double targetMs) {
  if (!std::ifstream(dir + "/model.safetensors")) {
    std::printf("%s: %s is missing (run bench_gpt2 / bench_decoder first to write it)\n", label, dir.c_str());
    return;
  }
  // bench_decoder's folders have no tokenizer: the model is built from config.json and the weights, and
  // the prompt is ids spread over the vocabulary.
  HfConfig config = readHfConfig(dir + "/config.json");
  std::unique_ptr<Model> model;
  if (config.arch == HfArch::Gpt2)
    model = std::make_unique<Gpt2Model>(config, nullptr, openCheckpointWeights(dir), label);
  else
    model = std::make_unique<DecoderModel>(config, nullptr, openCheckpointWeights(dir), label);
  TokenizedText text;
  for (int i = 0; i < promptTokens; ++i) {
    text.ids.push_back((i * 7919 + 13) % config.vocabSize);
    text.tokens.push_back(Token{std::to_string(text.ids.back())});
  }
  const double startMs = bench::medianOfRuns(3, [&] { model->startDecoding(text.ids); });
  auto session = model->startDecoding(text.ids);
  int next = 0;
  // Each call appends one token (the cache grows from 64 to at most ~100 positions while measuring).
  const double stepMs = bench::medianOfRuns(30, [&] {
    const Vec logits = session->append(next);
    logits.maxCoeff(&next);
  });
  const Mat row = Mat::Random(1, model->info().dModel);
  const double unembedMs = bench::medianMs([&] { nextTokenLogits(*model->unembedding(), row); }, 0.3, 10);
  const double fullMs = bench::medianOfRuns(5, [&] {
    const Trace t = model->forward(text);
    model->unembedding()->logits(t.layers.back().residualOut.bottomRows(1));
  });
  std::printf("%s (%d-token prompt, vocab %ld × d %d)\n", label, promptTokens,
              static_cast<long>(model->unembedding()->vocab), model->info().dModel);
  bench::report("  one generated token with the cache", stepMs, targetMs);
  std::printf("  of which the unembedding (final norm + W_U)            %10.4f ms\n", unembedMs);
  std::printf("  reading the prompt into the cache                      %10.4f ms\n", startMs);
  std::printf("  without the cache: forward of the prompt + logits      %10.4f ms\n", fullMs);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::stoi(argv[1]) : 2;
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  std::printf("bench_generate: %d threads\n", threads);
  std::fflush(stdout);
  benchOne("GPT-2 small", "/tmp/attnlab-bench-gpt2-small", 64, 25.0);
  benchOne("SmolLM2-135M", "/tmp/attnlab-bench-smollm2-135m-f32", 64, 25.0);
  return 0;
}
