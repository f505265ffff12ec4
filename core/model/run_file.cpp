#include "core/model/run_file.h"

#include <cstring>
#include <fstream>
#include <map>

#include "core/base/errors.h"

namespace attnlab {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'R', 'U', 'N', '\n'};
constexpr std::size_t kPrefixBytes = 8 + 4 + 8;

/// The data's checksum: four lanes of FNV-1a's step over little-endian 64-bit words (32 bytes a round: byte-wise
/// FNV-1a took as long as the forward pass on a 140 MB run at this machine's clock), the tail bytes FNV-1a'd into lane
/// 0, the lanes and the length folded by the same step.
class DataHash {
 public:
  void add(const char* p, std::size_t n) {
    for (; n > 0 && fill_ > 0; --n) push(static_cast<unsigned char>(*p++));  // finish a partial block first
    for (; n >= 32; n -= 32, p += 32) {
      for (int i = 0; i < 4; ++i) {
        std::uint64_t w;
        std::memcpy(&w, p + 8 * i, 8);
        lane_[i] = (lane_[i] ^ w) * kPrime;
      }
      length_ += 32;
    }
    for (; n > 0; --n) push(static_cast<unsigned char>(*p++));
  }
  std::uint64_t value() const {
    std::uint64_t h = lane_[0];
    for (int i = 0; i < fill_; ++i) h = (h ^ block_[i]) * kPrime;
    for (int i = 1; i < 4; ++i) h = (h ^ lane_[i]) * kPrime;
    return (h ^ (length_ + static_cast<std::uint64_t>(fill_))) * kPrime;
  }

 private:
  static constexpr std::uint64_t kPrime = 0x100000001B3ull;
  void push(unsigned char c) {
    block_[fill_++] = c;
    if (fill_ == 32) {
      fill_ = 0;
      add(reinterpret_cast<const char*>(block_), 32);
    }
  }
  std::uint64_t lane_[4] = {0xCBF29CE484222325ull, 0xCBF29CE484222326ull, 0xCBF29CE484222327ull, 0xCBF29CE484222328ull};
  unsigned char block_[32] = {};
  int fill_ = 0;
  std::uint64_t length_ = 0;
};

/// The data section's layout: each array at an offset aligned to 8 bytes, written from the trace's own storage.
struct DataWriter {
  struct Piece {
    const char* data;
    std::size_t size, offset;
  };
  std::vector<Piece> pieces;
  std::size_t size = 0;
  nlohmann::json arrays = nlohmann::json::array();

  void add(const std::string& name, const char* dtype, long long rows, long long cols, const void* data,
           std::size_t bytes) {
    size = (size + 7) / 8 * 8;
    arrays.push_back({{"name", name}, {"dtype", dtype}, {"rows", rows}, {"cols", cols}, {"offset", size}});
    pieces.push_back({static_cast<const char*>(data), bytes, size});
    size += bytes;
  }
  void add(const std::string& name, const Mat& m) {
    add(name, "f32", m.rows(), m.cols(), m.data(), static_cast<std::size_t>(m.size()) * sizeof(float));
  }
  /// Each piece after the zeros that pad it to its offset, to `sink(pointer, bytes)`.
  template <typename Sink>
  void each(Sink&& sink) const {
    static const char zeros[8] = {};
    std::size_t at = 0;
    for (const Piece& p : pieces) {
      sink(zeros, p.offset - at);
      sink(p.data, p.size);
      at = p.offset + p.size;
    }
  }
};

nlohmann::json infoToJson(const RunFileModel& m) {
  const ModelInfo& i = m.info;
  return {{"name", i.name},
          {"kind", i.kind},
          {"layers", i.layers},
          {"heads", i.heads},
          {"d_model", i.dModel},
          {"d_head", i.dHead},
          {"max_tokens", i.maxTokens},
          {"kv_heads", i.kvHeads},
          {"piece_style", i.pieceStyle},
          {"model_dir", m.modelDir},
          {"config", m.config},
          {"vocabulary_size", m.vocabularySize}};
}

RunFileModel infoFromJson(const nlohmann::json& j) {
  RunFileModel m;
  m.info.name = j.at("name").get<std::string>();
  m.info.kind = j.at("kind").get<std::string>();
  m.info.layers = j.at("layers").get<int>();
  m.info.heads = j.at("heads").get<int>();
  m.info.dModel = j.at("d_model").get<int>();
  m.info.dHead = j.at("d_head").get<int>();
  m.info.maxTokens = j.at("max_tokens").get<int>();
  m.info.kvHeads = j.at("kv_heads").get<int>();
  m.info.pieceStyle = j.at("piece_style").get<std::string>();
  m.modelDir = j.at("model_dir").get<std::string>();
  m.config = j.at("config");
  m.vocabularySize = j.at("vocabulary_size").get<int>();
  return m;
}

nlohmann::json headToJson(const HeadTrace& h) {
  const HeadSummary& s = h.summary;
  return {{"scale", h.options.scale},
          {"causal", h.options.causal},
          {"window", h.options.window},
          {"softcap", h.options.softcap},
          {"summary",
           {{"tokens", s.tokens},
            {"cell_tokens", s.cellTokens},
            {"entropy", s.entropy},
            {"sink_share", s.sinkShare},
            {"previous_token", s.previousToken},
            {"mean_distance", s.meanDistance},
            {"max_weight", s.maxWeight},
            {"band_sums", s.bandSums}}}};
}

void headFromJson(const nlohmann::json& j, HeadTrace& h) {
  h.options.scale = j.at("scale").get<float>();
  h.options.causal = j.at("causal").get<bool>();
  h.options.window = j.at("window").get<int>();
  h.options.softcap = j.at("softcap").get<float>();
  const nlohmann::json& s = j.at("summary");
  h.summary.tokens = s.at("tokens").get<int>();
  h.summary.cellTokens = s.at("cell_tokens").get<int>();
  h.summary.entropy = s.at("entropy").get<double>();
  h.summary.sinkShare = s.at("sink_share").get<double>();
  h.summary.previousToken = s.at("previous_token").get<double>();
  h.summary.meanDistance = s.at("mean_distance").get<double>();
  h.summary.maxWeight = s.at("max_weight").get<float>();
  h.summary.bandSums = s.at("band_sums").get<std::vector<double>>();
}

std::string layerName(int l, const std::string& part) { return "blocks." + std::to_string(l) + "." + part; }
std::string headName(int l, const std::string& part, int h) { return layerName(l, part) + "." + std::to_string(h); }

template <typename T>
void putLittle(std::string& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
template <typename T>
T getLittle(const std::string& in, std::size_t at) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

/// The arrays of a read file by name, each checked to lie inside the data.
class DataReader {
 public:
  DataReader(const nlohmann::json& arrays, const char* data, std::size_t size, const std::string& file)
      : data_(data), file_(file) {
    for (const nlohmann::json& a : arrays) {
      Entry e{a.at("dtype").get<std::string>(), a.at("rows").get<long long>(), a.at("cols").get<long long>(),
              a.at("offset").get<std::size_t>()};
      const std::size_t width = e.dtype == "u8" ? 1 : 4;
      if ((e.dtype != "f32" && e.dtype != "i32" && e.dtype != "u8") || e.rows < 0 || e.cols < 0 ||
          static_cast<std::size_t>(e.rows) > size || static_cast<std::size_t>(e.cols) > size ||
          (e.cols > 0 && static_cast<std::size_t>(e.rows) > size / static_cast<std::size_t>(e.cols)) ||
          e.offset > size || static_cast<std::size_t>(e.rows * e.cols) * width > size - e.offset)
        fail("array '" + a.at("name").get<std::string>() + "' lies outside the data");
      entries_[a.at("name").get<std::string>()] = e;
    }
  }
  bool has(const std::string& name) const { return entries_.count(name) > 0; }
  Mat mat(const std::string& name, long long rows = -1, long long cols = -1) const {
    const Entry& e = entry(name, "f32");
    if ((rows >= 0 && e.rows != rows) || (cols >= 0 && e.cols != cols))
      fail("array '" + name + "' is " + std::to_string(e.rows) + " × " + std::to_string(e.cols) + ", expected " +
           std::to_string(rows) + " × " + std::to_string(cols));
    Mat m(e.rows, e.cols);
    std::memcpy(m.data(), data_ + e.offset, static_cast<std::size_t>(m.size()) * sizeof(float));
    return m;
  }
  /// An array the pass may leave empty (maps of a tiled pass, outputs the model recomputes), else rows × cols.
  Mat matOrEmpty(const std::string& name, long long rows, long long cols) const {
    const Entry& e = entry(name, "f32");
    return e.rows * e.cols == 0 ? Mat() : mat(name, rows, cols);
  }
  template <typename T>
  std::vector<T> vec(const std::string& name, const char* dtype) const {
    const Entry& e = entry(name, dtype);
    std::vector<T> v(static_cast<std::size_t>(e.rows * e.cols));
    if (!v.empty()) std::memcpy(v.data(), data_ + e.offset, v.size() * sizeof(T));
    return v;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("the run file " + file_ + " is corrupt: " + what);
  }

 private:
  struct Entry {
    std::string dtype;
    long long rows = 0, cols = 0;
    std::size_t offset = 0;
  };
  const Entry& entry(const std::string& name, const std::string& dtype) const {
    const auto it = entries_.find(name);
    if (it == entries_.end()) fail("it has no array '" + name + "'");
    if (it->second.dtype != dtype) fail("array '" + name + "' is " + it->second.dtype + ", not " + dtype);
    return it->second;
  }
  const char* data_;
  std::string file_;
  std::map<std::string, Entry> entries_;
};

}  // namespace

void writeRunFile(const std::string& path, const Trace& t, const RunFileModel& model) {
  const int n = t.tokenCount();
  DataWriter data;
  std::vector<int> lengths;
  std::string tokenBytes;
  for (const std::string& s : t.tokens) {
    lengths.push_back(static_cast<int>(s.size()));
    tokenBytes += s;
  }
  data.add("token_lengths", "i32", n, 1, lengths.data(), lengths.size() * sizeof(int));
  data.add("token_bytes", "u8", static_cast<long long>(tokenBytes.size()), 1, tokenBytes.data(), tokenBytes.size());
  data.add("token_ids", "i32", static_cast<long long>(t.tokenIds.size()), 1, t.tokenIds.data(),
           t.tokenIds.size() * sizeof(int));
  data.add("hook_embed", t.embeddings);
  nlohmann::json heads = nlohmann::json::array();
  for (int l = 0; l < t.layerCount(); ++l) {
    const LayerTrace& L = t.layers[l];
    data.add(layerName(l, "hook_resid_post"), L.residualOut);
    data.add(layerName(l, "hook_attn_out"), L.attentionOut);
    data.add(layerName(l, "hook_mlp_out"), L.mlpOut);
    data.add(layerName(l, "attn.hook_z"), L.concat);
    nlohmann::json layerHeads = nlohmann::json::array();
    for (int h = 0; h < static_cast<int>(L.heads.size()); ++h) {
      const HeadTrace& H = L.heads[h];
      data.add(headName(l, "attn.hook_q", h), H.q);
      data.add(headName(l, "attn.hook_attn_scores", h), H.scores);
      data.add(headName(l, "attn.hook_pattern", h), H.attention);
      data.add(headName(l, "attn.thumb_mean", h), H.summary.thumbMean);
      data.add(headName(l, "attn.thumb_max", h), H.summary.thumbMax);
      data.add(headName(l, "attn.thumb_sum", h), H.summary.thumbSum);
      layerHeads.push_back(headToJson(H));
    }
    // K and V once per kv head: the query heads of a group share them (trace.h).
    const int kvHeads = t.kvHeadCount();
    for (int g = 0; g < kvHeads; ++g) {
      const HeadTrace& first = L.heads[static_cast<std::size_t>(g) * L.heads.size() / kvHeads];
      data.add(headName(l, "attn.hook_k", g), first.k());
      data.add(headName(l, "attn.hook_v", g), first.v());
    }
    heads.push_back(std::move(layerHeads));
  }
  DataHash hash;
  data.each([&hash](const char* p, std::size_t n) { hash.add(p, n); });
  const nlohmann::json header = {{"schema", kRunFileSchema},
                                 {"model", infoToJson(model)},
                                 {"tokens", n},
                                 {"layers", t.layerCount()},
                                 {"causal", t.causal},
                                 {"kv_heads", t.kvHeads},
                                 {"data_bytes", data.size},
                                 {"data_hash", std::to_string(hash.value())},
                                 {"arrays", data.arrays},
                                 {"heads", heads}};
  const std::string headerText = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string prefix(kMagic, sizeof kMagic);
  putLittle<std::uint32_t>(prefix, kRunFileVersion);
  putLittle<std::uint64_t>(prefix, headerText.size());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  out.write(headerText.data(), static_cast<std::streamsize>(headerText.size()));
  data.each([&out](const char* p, std::size_t n) { out.write(p, static_cast<std::streamsize>(n)); });
  if (!out.flush()) throw InputError("cannot write the run file " + path);
}

RunFile readRunFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw InputError("cannot read the run file " + path);
  std::string bytes(static_cast<std::size_t>(in.tellg()), '\0');  // one read: a long run's file is hundreds of MB
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size())))
    throw InputError("cannot read the run file " + path);
  if (bytes.size() < kPrefixBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw InputError(path + " is not a run file (attnlab.run/1, written by attnlab.show or attnlab.figure)");
  const std::uint32_t version = getLittle<std::uint32_t>(bytes, 8);
  if (version != kRunFileVersion)
    throw InputError("the run file " + path + " has format version " + std::to_string(version) +
                     "; this program reads version " + std::to_string(kRunFileVersion));
  const std::uint64_t headerBytes = getLittle<std::uint64_t>(bytes, 12);
  if (headerBytes > bytes.size() - kPrefixBytes)
    throw InputError("the run file " + path + " is truncated: " + std::to_string(bytes.size()) +
                     " bytes, its header alone takes " + std::to_string(kPrefixBytes + headerBytes));
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + kPrefixBytes,
                                   bytes.begin() + static_cast<std::ptrdiff_t>(kPrefixBytes + headerBytes));
  } catch (const nlohmann::json::exception& e) {
    throw InputError("the run file " + path + " is corrupt: its header is not JSON (" + e.what() + ")");
  }
  const std::size_t dataAt = kPrefixBytes + headerBytes;
  RunFile run;
  try {
    if (header.value("schema", "") != kRunFileSchema)
      throw InputError("the run file " + path + " has schema '" + header.value("schema", "") + "', not " +
                       kRunFileSchema);
    const std::size_t dataBytes = header.at("data_bytes").get<std::size_t>();
    if (bytes.size() - dataAt < dataBytes)
      throw InputError("the run file " + path + " is truncated: " + std::to_string(bytes.size()) + " bytes of the " +
                       std::to_string(dataAt + dataBytes) + " its header gives");
    if (bytes.size() - dataAt > dataBytes)
      throw InputError("the run file " + path + " is corrupt: " + std::to_string(bytes.size() - dataAt - dataBytes) +
                       " bytes after its data");
    const std::string_view data(bytes.data() + dataAt, dataBytes);
    DataHash hash;
    hash.add(data.data(), data.size());
    if (std::to_string(hash.value()) != header.at("data_hash").get<std::string>())
      throw InputError("the run file " + path + " is corrupt: its data does not match the header's checksum");
    const DataReader arrays(header.at("arrays"), data.data(), data.size(), path);
    run.model = infoFromJson(header.at("model"));
    Trace& t = run.trace;
    const int n = header.at("tokens").get<int>(), layers = header.at("layers").get<int>();
    t.causal = header.at("causal").get<bool>();
    t.kvHeads = header.at("kv_heads").get<int>();
    const std::vector<int> lengths = arrays.vec<int>("token_lengths", "i32");
    const std::vector<char> tokenBytes = arrays.vec<char>("token_bytes", "u8");
    if (static_cast<int>(lengths.size()) != n) arrays.fail("token_lengths has not one length per token");
    std::size_t at = 0;
    for (const int len : lengths) {
      if (len < 0 || at + static_cast<std::size_t>(len) > tokenBytes.size())
        arrays.fail("the tokens' lengths exceed token_bytes");
      t.tokens.emplace_back(tokenBytes.data() + at, static_cast<std::size_t>(len));
      at += static_cast<std::size_t>(len);
    }
    t.tokenIds = arrays.vec<int>("token_ids", "i32");
    if (!t.tokenIds.empty() && static_cast<int>(t.tokenIds.size()) != n)
      arrays.fail("token_ids has " + std::to_string(t.tokenIds.size()) + " ids for " + std::to_string(n) + " tokens");
    t.embeddings = arrays.mat("hook_embed", n);
    const nlohmann::json& heads = header.at("heads");
    if (static_cast<int>(heads.size()) != layers) arrays.fail("the header's heads do not list every layer");
    for (int l = 0; l < layers; ++l) {
      LayerTrace L;
      // Every shape the views index by: the streams n × d, the heads' columns n × d_head, the maps n × n.
      const long long d = t.embeddings.cols();
      L.residualOut = arrays.mat(layerName(l, "hook_resid_post"), n, d);
      L.attentionOut = arrays.matOrEmpty(layerName(l, "hook_attn_out"), n, d);
      L.mlpOut = arrays.matOrEmpty(layerName(l, "hook_mlp_out"), n, d);
      L.concat = arrays.mat(layerName(l, "attn.hook_z"), n);
      const int H = static_cast<int>(heads[l].size());
      const int kv = t.kvHeads > 0 ? t.kvHeads : H;
      if (H == 0 || kv <= 0 || H % kv != 0) arrays.fail("layer " + std::to_string(l) + " has no heads or bad groups");
      if (L.concat.cols() % H != 0) arrays.fail(layerName(l, "attn.hook_z") + "'s columns are not split by the heads");
      const long long dHead = L.concat.cols() / H;
      std::vector<SharedMat> keys, values;
      for (int g = 0; g < kv; ++g) {
        keys.push_back(shareMat(arrays.mat(headName(l, "attn.hook_k", g), n, dHead)));
        values.push_back(shareMat(arrays.mat(headName(l, "attn.hook_v", g), n, dHead)));
      }
      for (int h = 0; h < H; ++h) {
        HeadTrace ht;
        ht.q = arrays.mat(headName(l, "attn.hook_q", h), n, dHead);
        ht.keys = keys[static_cast<std::size_t>(h / (H / kv))];
        ht.values = values[static_cast<std::size_t>(h / (H / kv))];
        ht.scores = arrays.matOrEmpty(headName(l, "attn.hook_attn_scores", h), n, n);
        ht.attention = arrays.matOrEmpty(headName(l, "attn.hook_pattern", h), n, n);
        ht.summary.thumbMean = arrays.mat(headName(l, "attn.thumb_mean", h));
        ht.summary.thumbMax = arrays.mat(headName(l, "attn.thumb_max", h));
        ht.summary.thumbSum = arrays.mat(headName(l, "attn.thumb_sum", h));
        headFromJson(heads[l][h], ht);
        L.heads.push_back(std::move(ht));
      }
      t.layers.push_back(std::move(L));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError("the run file " + path + " is corrupt: its header lacks a field (" + e.what() + ")");
  }
  return run;
}

}  // namespace attnlab
