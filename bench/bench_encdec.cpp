// Encoder–decoder decoding (issue 33): one generated token with the cached step (self K/V appended, cross K/V made
// once per source text) against the full recomputation of both stacks it replaces, on a random checkpoint of
// Helsinki-NLP/opus-mt's shape (Marian: d 512, 6 + 6 layers, 8 heads, FFN 2048) with the vocabulary cut to 8,000
// (opus-mt's 58,101 would only add the unembedding, the same in both ways). The checkpoint is written to
// /tmp/attnlab-bench-marian (about 190 MB) on the first run. Prints medians; speed targets are a later session's.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/base/json_file.h"
#include "core/checkpoint/encdec_model.h"
#include "core/checkpoint/safetensors_writer.h"

using namespace attnlab;

namespace {

constexpr int kD = 512, kLayers = 6, kHeads = 8, kFfn = 2048, kVocab = 8000;

void writeCheckpoint(const std::string& dir) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<TensorToWrite> t;
  auto add = [&](const std::string& name, std::vector<std::int64_t> shape, float scale, float offset = 0.0f) {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    TensorToWrite w{name, shape, std::vector<float>(static_cast<std::size_t>(n))};
    for (float& v : w.data) v = offset + scale * normal(rng);
    t.push_back(std::move(w));
  };
  const float s = 1.0f / std::sqrt(static_cast<float>(kD));
  add("model.shared.weight", {kVocab, kD}, 0.05f);
  add("final_logits_bias", {1, kVocab}, 0.0f);
  for (const std::string stack : {"encoder", "decoder"})
    for (int l = 0; l < kLayers; ++l) {
      const std::string p = "model." + stack + ".layers." + std::to_string(l) + ".";
      std::vector<std::string> attns = {"self_attn"};
      if (stack == "decoder") attns.push_back("encoder_attn");
      for (const std::string& a : attns) {
        for (const char* m : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
          add(p + a + "." + m + ".weight", {kD, kD}, s);
          add(p + a + "." + m + ".bias", {kD}, 0.02f);
        }
        add(p + a + "_layer_norm.weight", {kD}, 0.1f, 1.0f);
        add(p + a + "_layer_norm.bias", {kD}, 0.1f);
      }
      add(p + "fc1.weight", {kFfn, kD}, s);
      add(p + "fc1.bias", {kFfn}, 0.02f);
      add(p + "fc2.weight", {kD, kFfn}, 1.0f / std::sqrt(static_cast<float>(kFfn)));
      add(p + "fc2.bias", {kD}, 0.02f);
      add(p + "final_layer_norm.weight", {kD}, 0.1f, 1.0f);
      add(p + "final_layer_norm.bias", {kD}, 0.1f);
    }
  writeSafetensors(dir + "/model.safetensors", t);
  std::ofstream(dir + "/config.json")
      << R"({"model_type": "marian", "architectures": ["MarianMTModel"], "activation_function": "swish",
  "d_model": 512, "encoder_layers": 6, "decoder_layers": 6, "encoder_attention_heads": 8,
  "decoder_attention_heads": 8, "encoder_ffn_dim": 2048, "decoder_ffn_dim": 2048, "vocab_size": 8000,
  "decoder_vocab_size": 8000, "max_position_embeddings": 512, "decoder_start_token_id": 7999,
  "pad_token_id": 7999, "eos_token_id": 0, "scale_embedding": true, "normalize_before": false,
  "share_encoder_decoder_embeddings": true, "tie_word_embeddings": true})";
}

}  // namespace

int main() {
  const std::string dir = "/tmp/attnlab-bench-marian";
  if (!fileExists(dir + "/model.safetensors")) {
    std::filesystem::create_directories(dir);
    writeCheckpoint(dir);
  }
  const std::unique_ptr<EncDecModel> m = EncDecModel::open(dir);
  std::vector<int> src;
  for (int i = 0; i < 32; ++i) src.push_back((i * 7919 + 13) % kVocab);
  std::vector<int> tgt = {7999};
  for (int i = 0; i < 31; ++i) tgt.push_back((i * 104729 + 5) % kVocab);
  const double startMs = bench::medianOfRuns(5, [&] { m->startDecoding(src); });
  // Steps at positions 0 … 31 of one session (the cache grows while measuring), repeated over fresh sessions.
  std::vector<double> steps;
  for (int rep = 0; rep < 3; ++rep) {
    auto s = m->startDecoding(src);
    for (int id : tgt) steps.push_back(bench::medianOfRuns(1, [&] { s->step(id); }));
  }
  const double stepMs = bench::median(steps);
  // What one step replaces without the cache: both stacks over the source and the 32 target tokens, every map.
  const double fullMs = bench::medianOfRuns(5, [&] { m->forward(src, tgt); });
  std::printf("Marian opus-mt shape (d 512, 6+6 layers, vocab 8,000), 32 source tokens, 32 target tokens\n");
  std::printf("  start (encoder + cross K/V of 6 layers)        %9.3f ms\n", startMs);
  std::printf("  cached step (median over positions 0-31)       %9.3f ms\n", stepMs);
  std::printf("  full recomputation (forward, 32 + 32 tokens)   %9.3f ms\n", fullMs);
  std::printf("  full / cached step                             %9.1f x\n", fullMs / stepMs);
  return 0;
}
