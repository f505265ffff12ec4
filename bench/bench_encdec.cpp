// Encoder–decoders (issue 33) at three real shapes with random weights, the numbers `attnlab dump --source …` needs:
//   opus-mt-en-de  Marian  d 512, 6 + 6 layers, 8 heads, FFN 2048, vocab 58,101 (tied), sinusoidal positions
//   t5-small       T5 v1.0 d 512, 6 + 6 layers, 8 heads of 64, FFN 2048 ReLU, vocab 32,128 (tied), 32 buckets / 128
//   bart-base      BART    d 768, 6 + 6 layers, 12 heads, FFN 3072 GELU, vocab 50,265 (tied), 1,024 positions
// Measured, with a 30-token source:
//   edit      every map after an edit of the source: forward of the source and a 31-token decoder input
//             (start + 30 target tokens), every map of both stacks and the cross maps, no logits (the dump's call)
//   translate the greedy 30-token translation with every map: start (encoder + cross K/V) + 30 cached steps
//             (argmax, no stop at </s>: random weights) + the edit's forward of source + translation for the maps
//   steps     the translation's cached part alone (start + 30 steps): what keeping the maps during the steps would
//             cost at the least (their maps are a few MB; the steps are memory-bound: each streams the decoder's
//             weights and the tied unembedding)
//   stream    one read of the decoder's product weights and the unembedding (the memory floor of one step)
// Targets (opus-mt): edit ≤ 100 ms, translate ≤ 400 ms. bench/pytorch_encdec.py runs the same in PyTorch on the same
// checkpoint files; bench/compare_encdec.sh runs both.
//   bench_encdec [--shape opus-mt-en-de|t5-small|bart-base|all] [--threads 2] [--runs 5] [--dir-prefix /tmp/…]
#include <omp.h>

#include <Eigen/Core>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/encdec_model.h"
#include "core/checkpoint/safetensors_writer.h"
#include "core/compute/packed_gemm.h"

using namespace attnlab;

namespace {

struct Shape {
  std::string name, family;
  int d, layers, heads, ffn, vocab, maxPositions;
  double editTargetMs, translateTargetMs;  ///< 0: no target set
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{{"opus-mt-en-de", "marian", 512, 6, 8, 2048, 58101, 512, 100, 400},
                                    {"t5-small", "t5", 512, 6, 8, 2048, 32128, 512, 0, 0},
                                    {"bart-base", "bart", 768, 6, 12, 3072, 50265, 1024, 0, 0}};
  return s;
}

struct Writer {
  std::mt19937 rng{7};
  std::normal_distribution<float> normal{0.0f, 1.0f};
  std::vector<TensorToWrite> t;
  void add(const std::string& name, std::vector<std::int64_t> shape, float scale, float offset = 0.0f) {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    TensorToWrite w{name, shape, std::vector<float>(static_cast<std::size_t>(n))};
    for (float& v : w.data) v = offset + scale * normal(rng);
    t.push_back(std::move(w));
  }
};

/// Marian or BART: HF's names under model., the tied table stored once as model.shared.weight.
void writeMarianOrBart(const std::string& dir, const Shape& s) {
  Writer w;
  const bool bart = s.family == "bart";
  const std::int64_t d = s.d, f = s.ffn;
  const float sd = 1.0f / std::sqrt(static_cast<float>(d));
  w.add("model.shared.weight", {s.vocab, d}, 0.05f);
  w.add("final_logits_bias", {1, s.vocab}, 0.0f);
  for (const std::string stack : {"encoder", "decoder"}) {
    if (bart) {
      w.add("model." + stack + ".embed_positions.weight", {s.maxPositions + 2, d}, 0.02f);
      w.add("model." + stack + ".layernorm_embedding.weight", {d}, 0.1f, 1.0f);
      w.add("model." + stack + ".layernorm_embedding.bias", {d}, 0.1f);
    }
    for (int l = 0; l < s.layers; ++l) {
      const std::string p = "model." + stack + ".layers." + std::to_string(l) + ".";
      std::vector<std::string> attns = {"self_attn"};
      if (stack == "decoder") attns.push_back("encoder_attn");
      for (const std::string& a : attns) {
        for (const char* m : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
          w.add(p + a + "." + m + ".weight", {d, d}, sd);
          w.add(p + a + "." + m + ".bias", {d}, 0.02f);
        }
        w.add(p + a + "_layer_norm.weight", {d}, 0.1f, 1.0f);
        w.add(p + a + "_layer_norm.bias", {d}, 0.1f);
      }
      w.add(p + "fc1.weight", {f, d}, sd);
      w.add(p + "fc1.bias", {f}, 0.02f);
      w.add(p + "fc2.weight", {d, f}, 1.0f / std::sqrt(static_cast<float>(f)));
      w.add(p + "fc2.bias", {d}, 0.02f);
      w.add(p + "final_layer_norm.weight", {d}, 0.1f, 1.0f);
      w.add(p + "final_layer_norm.bias", {d}, 0.1f);
    }
  }
  writeSafetensors(dir + "/model.safetensors", w.t);
  const int start = bart ? 2 : s.vocab - 1;
  std::ofstream(dir + "/config.json")
      << "{\"model_type\": \"" << s.family << "\", \"activation_function\": \"" << (bart ? "gelu" : "swish")
      << "\", \"d_model\": " << s.d << ", \"encoder_layers\": " << s.layers << ", \"decoder_layers\": " << s.layers
      << ", \"encoder_attention_heads\": " << s.heads << ", \"decoder_attention_heads\": " << s.heads
      << ", \"encoder_ffn_dim\": " << s.ffn << ", \"decoder_ffn_dim\": " << s.ffn << ", \"vocab_size\": " << s.vocab
      << ", \"decoder_vocab_size\": " << s.vocab << ", \"max_position_embeddings\": " << s.maxPositions
      << ", \"decoder_start_token_id\": " << start << ", \"pad_token_id\": " << (bart ? 1 : s.vocab - 1)
      << ", \"eos_token_id\": " << (bart ? 2 : 0) << ", \"scale_embedding\": " << (bart ? "false" : "true")
      << ", \"normalize_before\": false, \"share_encoder_decoder_embeddings\": true, \"tie_word_embeddings\": true}";
}

/// T5 v1.0 (t5-small): shared.weight, blocks with q/k/v/o, relative_attention_bias in block 0, ReLU wi/wo.
void writeT5(const std::string& dir, const Shape& s) {
  Writer w;
  const std::int64_t d = s.d, f = s.ffn;
  w.add("shared.weight", {s.vocab, d}, 1.0f);
  for (const std::string stack : {"encoder", "decoder"}) {
    w.add(stack + ".final_layer_norm.weight", {d}, 0.1f, 1.0f);
    for (int b = 0; b < s.layers; ++b) {
      const std::string p = stack + ".block." + std::to_string(b) + ".layer.";
      std::vector<std::pair<std::string, int>> attns = {{"0.SelfAttention", 0}};
      if (stack == "decoder") attns.emplace_back("1.EncDecAttention", 1);
      for (const auto& [a, i] : attns) {
        for (const char* m : {"q", "k", "v"}) w.add(p + a + "." + m + ".weight", {d, d}, 1.0f / std::sqrt(float(d)));
        w.add(p + a + ".o.weight", {d, d}, 1.0f / std::sqrt(float(d)));
        w.add(p + std::to_string(i) + ".layer_norm.weight", {d}, 0.1f, 1.0f);
      }
      if (b == 0) w.add(p + "0.SelfAttention.relative_attention_bias.weight", {32, s.heads}, 1.0f);
      const std::string ff = p + (stack == "decoder" ? "2" : "1");
      w.add(ff + ".DenseReluDense.wi.weight", {f, d}, 1.0f / std::sqrt(float(d)));
      w.add(ff + ".DenseReluDense.wo.weight", {d, f}, 1.0f / std::sqrt(float(f)));
      w.add(ff + ".layer_norm.weight", {d}, 0.1f, 1.0f);
    }
  }
  writeSafetensors(dir + "/model.safetensors", w.t);
  std::ofstream(dir + "/config.json")
      << "{\"model_type\": \"t5\", \"d_model\": " << s.d << ", \"d_kv\": " << s.d / s.heads << ", \"d_ff\": " << s.ffn
      << ", \"num_layers\": " << s.layers << ", \"num_decoder_layers\": " << s.layers << ", \"num_heads\": " << s.heads
      << ", \"vocab_size\": " << s.vocab
      << ", \"feed_forward_proj\": \"relu\", \"relative_attention_num_buckets\": 32, "
         "\"relative_attention_max_distance\": 128, \"layer_norm_epsilon\": 1e-6, \"tie_word_embeddings\": true, "
         "\"decoder_start_token_id\": 0, \"eos_token_id\": 1, \"pad_token_id\": 0}";
}

/// Weights one cached step reads: the decoder's products and the tied unembedding (floats).
double stepFloats(const Shape& s) {
  const double d = s.d;
  return s.layers * (8 * d * d + 2 * d * s.ffn) + double(s.vocab) * d;
}

void run(const Shape& s, const std::string& dir, int threads, int runs) {
  if (!fileExists(dir + "/model.safetensors")) {
    std::filesystem::create_directories(dir);
    std::cerr << "writing a random " << s.name << " checkpoint to " << dir << " …\n";
    if (s.family == "t5")
      writeT5(dir, s);
    else
      writeMarianOrBart(dir, s);
  }
  const std::shared_ptr<const EncDecModel> m = EncDecModel::open(dir);
  const int start = m->config().decoderStartId;
  std::vector<int> src;  // the ids bench/pytorch_encdec.py feeds too
  for (int i = 0; i < 30; ++i) src.push_back(static_cast<int>((std::int64_t{i} * 7919 + 13) % s.vocab));
  std::vector<int> tgt{start};  // a fixed 30-token target for the edit
  for (int i = 0; i < 30; ++i) tgt.push_back(static_cast<int>((std::int64_t{i} * 104729 + 5) % s.vocab));

  m->forward(src, tgt, false);  // warm-up: pages mapped, products packed
  double meanAbs = 0;
  const double editMs = bench::medianOfRuns(runs, [&] {
    const EncDecTrace t = m->forward(src, tgt, false);
    meanAbs = t.decoderOut.cwiseAbs().mean();
  });
  std::vector<int> translation;
  const auto translate = [&](bool maps) {
    auto session = m->startDecoding(src);
    translation = {start};
    for (int k = 0; k < 30; ++k) {
      const Vec logits = session->step(translation.back());
      Eigen::Index best = 0;
      logits.maxCoeff(&best);
      translation.push_back(static_cast<int>(best));
    }
    if (maps) m->forward(src, translation, false);
  };
  const double stepsMs = bench::medianOfRuns(runs, [&] { translate(false); });
  const double translateMs = bench::medianOfRuns(runs, [&] { translate(true); });
  // The memory floor of one step: one pass over the weights a step reads (a sum, so nothing is skipped).
  const std::vector<float> weights(static_cast<std::size_t>(stepFloats(s)), 1.0f);
  double sink = 0;
  const double streamMs = bench::medianOfRuns(runs, [&] {
    sink += Eigen::Map<const Eigen::VectorXf>(weights.data(), static_cast<Eigen::Index>(weights.size())).sum();
  });
  const auto target = [](double ms, double t) {
    return t <= 0 ? std::string("no target")
                  : std::string(ms <= t ? "ok" : "MISSED") + " target " + std::to_string(static_cast<int>(t)) + " ms";
  };
  std::printf("attnlab  %s, %d threads (%s products), 30 source tokens, medians of %d runs:\n", s.name.c_str(), threads,
              packedGemmKernel(), runs);
  std::printf("attnlab    edit       every map, 30 + 31 tokens         %8.1f ms  (%s)\n", editMs,
              target(editMs, s.editTargetMs).c_str());
  std::printf("attnlab    translate  30 steps + forward for the maps   %8.1f ms  (%s)\n", translateMs,
              target(translateMs, s.translateTargetMs).c_str());
  std::printf("attnlab    steps      start + 30 cached steps alone     %8.1f ms  (%.1f ms a step)\n", stepsMs,
              stepsMs / 30);
  std::printf("attnlab    stream     one read of a step's %4.0f MB       %8.1f ms  (x30 = %.0f ms: the steps' floor)\n",
              stepFloats(s) * 4 / 1e6, streamMs, streamMs * 30);
  std::printf("attnlab    check      mean |decoder output| %.6f; translation starts", meanAbs + 0 * sink);
  for (std::size_t i = 0; i < 6 && i < translation.size(); ++i) std::printf(" %d", translation[i]);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {
      {"--shape", "all"}, {"--threads", "2"}, {"--runs", "5"}, {"--dir-prefix", "/tmp/attnlab-bench-encdec-"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  try {
    const int threads = std::stoi(opt["--threads"]), runs = std::stoi(opt["--runs"]);
    omp_set_num_threads(threads);
    Eigen::setNbThreads(threads);
    bool any = false;
    for (const Shape& s : shapes())
      if (opt["--shape"] == "all" || opt["--shape"] == s.name) {
        run(s, opt["--dir-prefix"] + s.name, threads, runs);
        any = true;
      }
    if (!any) throw InputError("--shape must be opus-mt-en-de, t5-small, bart-base or all");
  } catch (const std::exception& e) {
    std::cerr << "bench_encdec: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
