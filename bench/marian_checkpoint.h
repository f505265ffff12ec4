#pragma once
// A random Marian checkpoint of Helsinki-NLP/opus-mt's shape (d 512, 6 + 6 layers, 8 heads, FFN 2048, vocabulary cut
// to 8,000), written as bench_encdec writes it (the same tensors and seed), for the window's encoder–decoder bench.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/checkpoint/safetensors_writer.h"

namespace attnlab::bench {

inline constexpr int kMarianD = 512;
inline constexpr int kMarianLayers = 6, kMarianHeads = 8, kMarianFfn = 2048, kMarianVocab = 8000;

inline void writeMarianCheckpoint(const std::string& dir) {
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
  const float s = 1.0f / std::sqrt(static_cast<float>(kMarianD));
  add("model.shared.weight", {kMarianVocab, kMarianD}, 0.05f);
  add("final_logits_bias", {1, kMarianVocab}, 0.0f);
  for (const std::string stack : {"encoder", "decoder"})
    for (int l = 0; l < kMarianLayers; ++l) {
      const std::string p = "model." + stack + ".layers." + std::to_string(l) + ".";
      std::vector<std::string> attns = {"self_attn"};
      if (stack == "decoder") attns.push_back("encoder_attn");
      for (const std::string& a : attns) {
        for (const char* m : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
          add(p + a + "." + m + ".weight", {kMarianD, kMarianD}, s);
          add(p + a + "." + m + ".bias", {kMarianD}, 0.02f);
        }
        add(p + a + "_layer_norm.weight", {kMarianD}, 0.1f, 1.0f);
        add(p + a + "_layer_norm.bias", {kMarianD}, 0.1f);
      }
      add(p + "fc1.weight", {kMarianFfn, kMarianD}, s);
      add(p + "fc1.bias", {kMarianFfn}, 0.02f);
      add(p + "fc2.weight", {kMarianD, kMarianFfn}, 1.0f / std::sqrt(static_cast<float>(kMarianFfn)));
      add(p + "fc2.bias", {kMarianD}, 0.02f);
      add(p + "final_layer_norm.weight", {kMarianD}, 0.1f, 1.0f);
      add(p + "final_layer_norm.bias", {kMarianD}, 0.1f);
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

}  // namespace attnlab::bench
