// Decoder forward passes at the shapes of three real checkpoints, every attention map kept, random weights:
//   bench_decoder --shape smollm2-135m|qwen2.5-0.5b|llama-3.2-1b [--dir DIR] [--tokens 64] [--threads 2]
//                 [--runs 20] [--dtype f32|bf16] [--breakdown 1] [--patch 1]
// Writes DIR (default /tmp/attnlab-bench-SHAPE-DTYPE) once, reused when present: config.json as Hugging Face
// writes it for that model, and the weights in the exact HF layout (names under "model.", nn.Linear
// [out, in], tied embeddings), uniform with std 0.02, norms 1; Llama-3.2-1B's 2.5 GB of BF16 go into two
// shards with model.safetensors.index.json. Then opens it as the program does (config, weights mapped,
// products packed), times forward() and prints the open time, resident memory (VmRSS, peak VmHWM), the
// fp32 size of the weights, the median and min with GFLOP/s. --breakdown times the layer's four products
// alone at the same shapes, so the rest (attention, RoPE, norms, trace copies) is the difference.
// --patch times issue 16's head-patching map (all heads, ≤ 3 s) on the text with token 3 changed, and on its
// first 14 tokens with token 9 changed (the IOI pair's shape), each also through one full forward pass per head.
// bench/pytorch_decoder.py runs the same files in PyTorch; bench/compare_decoder.sh runs both.
#include <omp.h>

#include <sys/stat.h>
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/hf_config.h"
#include "core/compute/packed_gemm.h"
#include "core/model/full_forward_model.h"
#include "core/predict/patching.h"

using namespace attnlab;

namespace {

struct Shape {
  std::string name;
  int layers, heads, kvHeads, d, inner, vocab, headDim;
  bool qkvBias;
  nlohmann::json config;  ///< config.json as published for the model
  std::string dtype;      ///< the default file dtype
  int shards;
  double targetMs;
  std::int64_t qWidth() const { return std::int64_t{heads} * headDim; }
  std::int64_t kvWidth() const { return std::int64_t{kvHeads} * headDim; }
};

Shape shapeNamed(const std::string& s) {
  if (s == "smollm2-135m")
    return {s,
            30,
            9,
            3,
            576,
            1536,
            49152,
            64,
            false,
            nlohmann::json{{"architectures", {"LlamaForCausalLM"}},
                           {"attention_bias", false},
                           {"attention_dropout", 0.0},
                           {"bos_token_id", 0},
                           {"eos_token_id", 0},
                           {"hidden_act", "silu"},
                           {"hidden_size", 576},
                           {"initializer_range", 0.041666666666666664},
                           {"intermediate_size", 1536},
                           {"is_llama_config", true},
                           {"max_position_embeddings", 8192},
                           {"model_type", "llama"},
                           {"num_attention_heads", 9},
                           {"num_hidden_layers", 30},
                           {"num_key_value_heads", 3},
                           {"pretraining_tp", 1},
                           {"rms_norm_eps", 1e-05},
                           {"rope_interleaved", false},
                           {"rope_scaling", nullptr},
                           {"rope_theta", 100000},
                           {"tie_word_embeddings", true},
                           {"torch_dtype", "bfloat16"},
                           {"transformers_version", "4.40.1"},
                           {"use_cache", true},
                           {"vocab_size", 49152}},
            "f32",
            1,
            40};
  if (s == "qwen2.5-0.5b")
    return {s,
            24,
            14,
            2,
            896,
            4864,
            151936,
            64,
            true,
            nlohmann::json{{"architectures", {"Qwen2ForCausalLM"}},
                           {"attention_dropout", 0.0},
                           {"bos_token_id", 151643},
                           {"eos_token_id", 151643},
                           {"hidden_act", "silu"},
                           {"hidden_size", 896},
                           {"initializer_range", 0.02},
                           {"intermediate_size", 4864},
                           {"max_position_embeddings", 32768},
                           {"max_window_layers", 24},
                           {"model_type", "qwen2"},
                           {"num_attention_heads", 14},
                           {"num_hidden_layers", 24},
                           {"num_key_value_heads", 2},
                           {"rms_norm_eps", 1e-06},
                           {"rope_theta", 1000000.0},
                           {"sliding_window", 32768},
                           {"tie_word_embeddings", true},
                           {"torch_dtype", "bfloat16"},
                           {"transformers_version", "4.40.1"},
                           {"use_cache", true},
                           {"use_mrope", false},
                           {"use_sliding_window", false},
                           {"vocab_size", 151936}},
            "f32",
            1,
            150};
  if (s == "llama-3.2-1b")
    return {s,
            16,
            32,
            8,
            2048,
            8192,
            128256,
            64,
            false,
            nlohmann::json{{"architectures", {"LlamaForCausalLM"}},
                           {"attention_bias", false},
                           {"attention_dropout", 0.0},
                           {"bos_token_id", 128000},
                           {"eos_token_id", 128001},
                           {"head_dim", 64},
                           {"hidden_act", "silu"},
                           {"hidden_size", 2048},
                           {"initializer_range", 0.02},
                           {"intermediate_size", 8192},
                           {"max_position_embeddings", 131072},
                           {"mlp_bias", false},
                           {"model_type", "llama"},
                           {"num_attention_heads", 32},
                           {"num_hidden_layers", 16},
                           {"num_key_value_heads", 8},
                           {"pretraining_tp", 1},
                           {"rms_norm_eps", 1e-05},
                           {"rope_scaling",
                            {{"factor", 32.0},
                             {"high_freq_factor", 4.0},
                             {"low_freq_factor", 1.0},
                             {"original_max_position_embeddings", 8192},
                             {"rope_type", "llama3"}}},
                           {"rope_theta", 500000.0},
                           {"tie_word_embeddings", true},
                           {"torch_dtype", "bfloat16"},
                           {"transformers_version", "4.45.0.dev0"},
                           {"use_cache", true},
                           {"vocab_size", 128256}},
            "bf16",
            2,
            400};
  throw InputError("--shape must be smollm2-135m, qwen2.5-0.5b or llama-3.2-1b, not \"" + s + "\"");
}

struct TensorSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  std::int64_t count() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

/// Every tensor of the checkpoint, as HF names and shapes them (nn.Linear weights [out, in]).
std::vector<TensorSpec> tensorsOf(const Shape& s) {
  std::vector<TensorSpec> t = {{"model.embed_tokens.weight", {s.vocab, s.d}}, {"model.norm.weight", {s.d}}};
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    t.push_back({p + "input_layernorm.weight", {s.d}});
    t.push_back({p + "post_attention_layernorm.weight", {s.d}});
    t.push_back({p + "self_attn.q_proj.weight", {s.qWidth(), s.d}});
    t.push_back({p + "self_attn.k_proj.weight", {s.kvWidth(), s.d}});
    t.push_back({p + "self_attn.v_proj.weight", {s.kvWidth(), s.d}});
    if (s.qkvBias) {
      t.push_back({p + "self_attn.q_proj.bias", {s.qWidth()}});
      t.push_back({p + "self_attn.k_proj.bias", {s.kvWidth()}});
      t.push_back({p + "self_attn.v_proj.bias", {s.kvWidth()}});
    }
    t.push_back({p + "self_attn.o_proj.weight", {s.d, s.qWidth()}});
    t.push_back({p + "mlp.gate_proj.weight", {s.inner, s.d}});
    t.push_back({p + "mlp.up_proj.weight", {s.inner, s.d}});
    t.push_back({p + "mlp.down_proj.weight", {s.d, s.inner}});
  }
  return t;
}

/// Uniform in [−a, a] with a = 0.02·√3 (std 0.02): only the timing matters.
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

/// float → bfloat16 bits, round to nearest even (as torch's .to(torch.bfloat16)).
std::uint16_t toBf16(float v) {
  std::uint32_t b = 0;
  std::memcpy(&b, &v, 4);
  b += 0x7FFFu + ((b >> 16) & 1u);
  return static_cast<std::uint16_t>(b >> 16);
}

/// Writes one safetensors file of `tensors` (little-endian host assumed, as x86 is).
void writeShard(const std::string& path, const std::vector<TensorSpec>& tensors, bool bf16, Rng& rng) {
  const int width = bf16 ? 2 : 4;
  nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
  std::uint64_t offset = 0;
  for (const TensorSpec& t : tensors) {
    const std::uint64_t n = static_cast<std::uint64_t>(t.count()) * width;
    header[t.name] = {{"dtype", bf16 ? "BF16" : "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::ofstream out(path + ".part", std::ios::binary);
  const std::uint64_t len = text.size();
  out.write(reinterpret_cast<const char*>(&len), 8);
  out << text;
  std::vector<float> f;
  std::vector<std::uint16_t> h;
  for (const TensorSpec& t : tensors) {
    f.resize(static_cast<std::size_t>(t.count()));
    const bool gain = t.name.find("norm") != std::string::npos;
    for (float& x : f) x = gain ? 1.0f : rng.next();
    if (bf16) {
      h.resize(f.size());
      std::transform(f.begin(), f.end(), h.begin(), toBf16);
      out.write(reinterpret_cast<const char*>(h.data()), static_cast<std::streamsize>(h.size() * 2));
    } else {
      out.write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size() * 4));
    }
  }
  out.close();
  if (!out || std::rename((path + ".part").c_str(), path.c_str()) != 0)
    throw InputError(path + ": writing failed (disk full?)");
}

/// config.json, then the weights: one model.safetensors, or `shards` files split by bytes with the index.
void writeCheckpoint(const std::string& dir, const Shape& s, bool bf16) {
  ::mkdir(dir.c_str(), 0755);
  nlohmann::json config = s.config;
  config["torch_dtype"] = bf16 ? "bfloat16" : "float32";
  std::ofstream(dir + "/config.json") << config.dump(2) << "\n";
  const std::vector<TensorSpec> all = tensorsOf(s);
  Rng rng{42};
  if (s.shards <= 1) {
    writeShard(dir + "/model.safetensors", all, bf16, rng);
    return;
  }
  std::uint64_t total = 0;
  for (const TensorSpec& t : all) total += static_cast<std::uint64_t>(t.count()) * (bf16 ? 2 : 4);
  std::vector<std::vector<TensorSpec>> parts(static_cast<std::size_t>(s.shards));
  std::uint64_t at = 0;
  for (const TensorSpec& t : all) {
    parts[std::min<std::size_t>(parts.size() - 1, at * parts.size() / total)].push_back(t);
    at += static_cast<std::uint64_t>(t.count()) * (bf16 ? 2 : 4);
  }
  nlohmann::json index = {{"metadata", {{"total_size", total}}}, {"weight_map", nlohmann::json::object()}};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    char file[64];
    std::snprintf(file, sizeof file, "model-%05zu-of-%05zu.safetensors", i + 1, parts.size());
    for (const TensorSpec& t : parts[i]) index["weight_map"][t.name] = file;
    writeShard(dir + "/" + file, parts[i], bf16, rng);
  }
  std::ofstream(dir + "/model.safetensors.index.json") << index.dump(2) << "\n";
}

/// VmRSS and VmHWM of /proc/self/status, in MB.
std::pair<double, double> residentMb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  double rss = 0, hwm = 0, kb = 0;
  while (in >> key) {
    if (key == "VmRSS:" && in >> kb) rss = kb / 1e3;
    if (key == "VmHWM:" && in >> kb) hwm = kb / 1e3;
  }
  return {rss, hwm};
}

/// Weights used in the layers' products (no embeddings, no norms).
double productParams(const Shape& s) {
  const double d = s.d;
  return s.layers * (d * (s.qWidth() + 2.0 * s.kvWidth()) + s.qWidth() * d + 3.0 * d * s.inner);
}

/// 2·params·n for the products plus Q·Kᵀ and A·V over every head (full n², as computed).
double forwardFlops(const Shape& s, int n) {
  return 2.0 * productParams(s) * n + s.layers * 2.0 * 2.0 * n * n * s.heads * s.headDim;
}

/// The layer's four products alone at the forward's shapes, × layers: what the rest of forward() adds.
void printBreakdown(const Shape& s, int n, int runs) {
  const Eigen::Index d = s.d, qkv = s.qWidth() + 2 * s.kvWidth();
  const std::vector<std::pair<const char*, std::pair<Eigen::Index, Eigen::Index>>> products = {
      {"q|k|v", {d, qkv}}, {"o", {s.qWidth(), d}}, {"gate|up", {d, 2 * Eigen::Index{s.inner}}}, {"down", {s.inner, d}}};
  double total = 0;
  for (const auto& [what, io] : products) {
    // As many distinct weight copies as layers, so the weights stream from memory as in forward().
    std::vector<PackedMatrix> w;
    Rng rng{7};
    std::vector<float> raw(static_cast<std::size_t>(io.first * io.second));
    for (float& x : raw) x = rng.next();
    for (int l = 0; l < s.layers; ++l) w.push_back(PackedMatrix::fromOutIn(raw.data(), io.second, io.first));
    const Mat x = Mat::Random(n, io.first);
    const double ms = bench::medianOfRuns(runs, [&] {
      for (const PackedMatrix& m : w) m.affine(x, Vec());
    });
    total += ms;
    std::printf("attnlab    %-8s [%d, %ld]·[%ld, %ld] × %d layers: %.1f ms (%.0f GFLOP/s)\n", what, n,
                static_cast<long>(io.first), static_cast<long>(io.first), static_cast<long>(io.second), s.layers, ms,
                2.0 * n * io.first * io.second * s.layers / ms / 1e6);
  }
  std::printf("attnlab    products alone: %.1f ms (%.0f GFLOP/s)\n", total, 2.0 * productParams(s) * n / total / 1e6);
}

}  // namespace

void timePatching(const Model& model, const TokenizedText& text) {
  TokenizedText ioi;
  for (std::size_t i = 0; i < 14 && i < text.ids.size(); ++i) {
    ioi.ids.push_back(text.ids[i]);
    ioi.tokens.push_back(text.tokens[i]);
  }
  for (auto [clean, changed] : {std::pair{text, std::size_t{3}}, std::pair{ioi, std::size_t{9}}}) {
    TokenizedText corrupt = clean;
    corrupt.ids[changed] = (corrupt.ids[changed] + 1) % static_cast<int>(model.unembedding()->vocab);
    auto time = [&](const Model& m) {
      return bench::medianOfRuns(1, [&] { activationPatching(m, clean, corrupt, 1, 2, {}, false); });
    };
    const double fast = time(model), full = time(FullForwardModel(model));
    std::printf(
        "attnlab  head patching map, %zu tokens (token %zu changed): %.0f ms resumed, %.0f ms with a full "
        "forward pass per head (target 3000 ms: %s)\n",
        clean.ids.size(), changed, fast, full, fast <= 3000.0 ? "ok" : "MISSED");
  }
}

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--shape", "smollm2-135m"}, {"--tokens", "64"},
                                            {"--threads", "2"},          {"--runs", "20"},
                                            {"--breakdown", "0"},        {"--patch", "0"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  try {
    const Shape s = shapeNamed(opt["--shape"]);
    const std::string dtype = opt.count("--dtype") ? opt["--dtype"] : s.dtype;
    if (dtype != "f32" && dtype != "bf16") throw InputError("--dtype must be f32 or bf16");
    const std::string dir = opt.count("--dir") ? opt["--dir"] : "/tmp/attnlab-bench-" + s.name + "-" + dtype;
    const int tokens = std::stoi(opt["--tokens"]), threads = std::stoi(opt["--threads"]);
    const int runs = std::stoi(opt["--runs"]);
    omp_set_num_threads(threads);
    Eigen::setNbThreads(threads);
    if (!fileExists(dir + "/config.json")) {
      std::cerr << "writing a random " << s.name << " checkpoint (" << dtype << ") to " << dir << " …\n";
      writeCheckpoint(dir, s, dtype == "bf16");
    }
    const auto before = residentMb();
    const auto t0 = std::chrono::steady_clock::now();
    HfConfig config = readHfConfig(dir + "/config.json");
    const DecoderModel model(std::move(config), nullptr, openCheckpointWeights(dir), s.name);
    const double openMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto opened = residentMb();

    TokenizedText text;  // the ids pytorch_decoder.py feeds too
    for (int i = 0; i < tokens; ++i) {
      text.ids.push_back(static_cast<int>(std::int64_t{i} * 97 % s.vocab));
      text.tokens.push_back(Token{std::to_string(text.ids.back())});
    }
    std::vector<double> ms;
    double meanAbs = 0;  // compared with pytorch_decoder.py's: the same computation
    for (int r = 0; r < runs + 3; ++r) {
      const auto a = std::chrono::steady_clock::now();
      const Trace trace = model.forward(text);
      if (r >= 3) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
      if (trace.layerCount() != s.layers) return 1;
      meanAbs = trace.layers.back().residualOut.cwiseAbs().mean();
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    const auto after = residentMb();
    std::printf(
        "attnlab  %s, %s file, %d tokens, %d threads, %s products, every map kept: median %.1f ms, min %.1f ms "
        "over %d runs (%.0f GFLOP/s; %.1f GFLOP; target %.0f ms: %s); mean |last residual| %.6f\n",
        s.name.c_str(), dtype.c_str(), tokens, threads, packedGemmKernel(), median, ms.front(), runs,
        forwardFlops(s, tokens) / median / 1e6, forwardFlops(s, tokens) / 1e9, s.targetMs,
        median <= s.targetMs ? "ok" : "MISSED", meanAbs);
    std::printf(
        "attnlab  %s open %.0f ms (config, %s mapped, products packed); VmRSS %.0f MB before, %.0f MB after "
        "opening, %.0f MB after the runs; VmHWM peak %.0f MB after opening, %.0f MB after the runs; fp32 weights "
        "%.0f MB (products %.0f MB)\n",
        s.name.c_str(), openMs, s.shards > 1 ? "shards" : "file", before.first, opened.first, after.first,
        opened.second, after.second, (productParams(s) + double(s.vocab) * s.d) * 4 / 1e6, productParams(s) * 4 / 1e6);
    if (opt["--breakdown"] != "0") printBreakdown(s, tokens, runs);
    if (opt["--patch"] != "0") timePatching(model, text);
  } catch (const InputError& e) {
    std::cerr << "bench_decoder: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
