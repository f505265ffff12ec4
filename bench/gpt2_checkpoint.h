#pragma once
// A GPT-2-small-shaped checkpoint on random weights, written once for the benches that need a real-size model
// (bench_gpt2, bench_dump): DIR/{config.json, model.safetensors (≈500 MB, F32, N(0, 0.02)-like weights), vocab.json,
// merges.txt (the tokenizer files of tests/fixtures)}. Needs ATTNLAB_SOURCE_DIR defined.
#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/json_file.h"

namespace attnlab::bench {

inline constexpr int kD = 768, kHeads = 12, kLayers = 12, kPositions = 1024, kVocab = 50257;

/// Uniform in [−a, a] with a = 0.02·√3 (std 0.02, like GPT-2's initialisation): only the timing matters.
struct Rng {
  std::uint64_t s;
  float next() {
    s += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (static_cast<float>(z >> 40) / 16777216.0f * 2.0f - 1.0f) * 0.034641f;
  }
};

inline std::vector<std::pair<std::string, std::vector<std::int64_t>>> gpt2Tensors() {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> t = {
      {"wte.weight", {kVocab, kD}}, {"wpe.weight", {kPositions, kD}}, {"ln_f.weight", {kD}}, {"ln_f.bias", {kD}}};
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    for (const char* ln : {"ln_1", "ln_2"}) {
      t.push_back({p + ln + ".weight", {kD}});
      t.push_back({p + ln + ".bias", {kD}});
    }
    t.push_back({p + "attn.c_attn.weight", {kD, 3 * kD}});
    t.push_back({p + "attn.c_attn.bias", {3 * kD}});
    t.push_back({p + "attn.c_proj.weight", {kD, kD}});
    t.push_back({p + "attn.c_proj.bias", {kD}});
    t.push_back({p + "mlp.c_fc.weight", {kD, 4 * kD}});
    t.push_back({p + "mlp.c_fc.bias", {4 * kD}});
    t.push_back({p + "mlp.c_proj.weight", {4 * kD, kD}});
    t.push_back({p + "mlp.c_proj.bias", {kD}});
  }
  return t;
}

inline void writeCheckpoint(const std::string& dir) {
  ::mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/config.json") << nlohmann::json{
      {"model_type", "gpt2"},
      {"n_embd", kD},
      {"n_head", kHeads},
      {"n_layer", kLayers},
      {"n_positions", kPositions},
      {"vocab_size", kVocab},
      {"activation_function", "gelu_new"}}.dump(2);
  for (const char* f : {"vocab.json", "merges.txt"})
    std::ofstream(dir + "/" + f, std::ios::binary)
        << readTextFile(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/lm-buddy/fake_gpt2/" + f);
  nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
  std::uint64_t offset = 0;
  const auto tensors = gpt2Tensors();
  for (const auto& [name, shape] : tensors) {
    std::uint64_t n = 4;
    for (auto d : shape) n *= static_cast<std::uint64_t>(d);
    header[name] = {{"dtype", "F32"}, {"shape", shape}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::ofstream out(dir + "/model.safetensors", std::ios::binary);
  const std::uint64_t len = text.size();
  out.write(reinterpret_cast<const char*>(&len), 8);
  out << text;
  Rng rng{42};
  std::vector<float> buf;
  for (const auto& [name, shape] : tensors) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    buf.resize(static_cast<std::size_t>(n));
    const bool gain = name.find("ln_") != std::string::npos && name.find(".weight") != std::string::npos;
    for (float& x : buf) x = gain ? 1.0f : rng.next();
    out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(n * 4));
  }
}

}  // namespace attnlab::bench
