#include "core/run/model_card.h"

#include <sys/stat.h>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/checkpoint/decoder_model.h"
#include "core/checkpoint/encdec_model.h"
#include "core/checkpoint/hf_model.h"
#include "core/run/encdec_run.h"
#include "core/run/recorded_run.h"
#include "core/train/shipped_models.h"
#include "core/train/tiny_model.h"

namespace attnlab {
namespace {

/// 10000 → "10000", 1e6 → "1000000", 500000.5 → "500000.5".
std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, x == std::floor(x) && std::abs(x) < 1e12 ? "%.0f" : "%g", x);
  return text;
}

std::string ropeText(const RopeSpec& r) {
  std::string s = "RoPE θ " + number(r.theta);
  switch (r.scaling) {
    case RopeScaling::None:
      break;
    case RopeScaling::Linear:
      s += ", linear ×" + number(r.factor);
      break;
    case RopeScaling::Dynamic:
      s += ", dynamic ×" + number(r.factor);
      break;
    case RopeScaling::Llama3:
      s += ", llama3 ×" + number(r.factor);
      break;
  }
  return s;
}

/// Adds dir/name to the card when the file is there (tokenizer files are optional, one family reads one set).
void addFile(ModelCard& card, const std::string& dir, const std::string& name) {
  struct stat st {};
  if (::stat((dir + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode))
    card.files.push_back({name, static_cast<std::uint64_t>(st.st_size)});
}

std::string baseName(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Parameters and bytes of every tensor of `set`, and its files (an index, then its shards) when `dir` is a folder.
void addWeights(const SafetensorsSet& set, const std::string& dir, ModelCard& card) {
  if (!dir.empty() && (set.shardCount() > 1 || baseName(set.path()) != "model.safetensors"))
    addFile(card, dir, baseName(set.path()));
  for (std::size_t s = 0; s < set.shardCount(); ++s) {
    const SafetensorsFile& shard = set.shard(s);
    if (!dir.empty()) addFile(card, dir, baseName(shard.path()));
    for (const TensorInfo& t : shard.header().tensors) {
      card.parameters += t.elementCount();
      card.dtypeBytes[toString(t.dtype)] += t.end - t.begin;
      card.weightBytes += t.end - t.begin;
    }
  }
}

void describeHf(const HfModel& m, const std::string& dir, ModelCard& card) {
  const HfConfig& c = m.config();
  card.name = m.name();
  card.family = c.modelType;
  card.kvHeads = c.heads;
  card.dInner = c.dInner;
  card.vocab = c.vocabSize;
  card.windows.assign(static_cast<std::size_t>(c.layers), 0);
  card.positionKind = "learned table";
  switch (c.arch) {
    case HfArch::Gpt2:
      card.architecture = "GPT-2";
      break;
    case HfArch::Bert:
    case HfArch::DistilBert:
      card.architecture = std::string(toString(c.arch)) + " encoder";
      card.causal = false;
      break;
    case HfArch::Decoder: {
      const DecoderSpec& d = c.decoder;
      card.family = toString(d.family);  // gemma3_text reads as gemma3
      card.architecture = "decoder";
      card.kvHeads = d.kvHeads;
      card.windows = d.window;
      card.positionKind = ropeText(d.rope);
      if (std::find(d.usesLocalRope.begin(), d.usesLocalRope.end(), true) != d.usesLocalRope.end())
        card.positionKind += "; sliding layers θ " + number(d.localRope.theta);
      break;
    }
  }
  card.source = dir;
  // The files in the order the loader reads them: config, tokenizer, weights.
  for (const char* name : {"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                           "vocab.json", "merges.txt", "vocab.txt"})
    addFile(card, dir, name);
  if (const SafetensorsSet* set = m.weightFiles()) addWeights(*set, dir, card);
}

/// Marian, BART, T5 (and builtin:reverse, a BART written out of the program): both stacks from config.json, the
/// parameters and bytes from the safetensors headers. The decoder's sizes fill the single-stack fields.
void describeEncDec(const EncDecFolderModel& m, const std::string& modelDir, ModelCard& card) {
  const EncDecConfig& c = m.model().config();
  card.name = m.name();
  card.family = c.modelType;
  card.architecture = "encoder–decoder";
  card.encoderDecoder = true;
  card.causal = true;  // the decoder's self-attention; the encoder's is bidirectional
  card.layers = c.decoderLayers;
  card.heads = card.kvHeads = c.decoderHeads;
  card.dModel = c.dModel;
  card.dHead = c.decoderHeadDim;
  card.dInner = c.decoderFfn;
  card.vocab = c.decoderVocabSize;
  card.encoderLayers = c.encoderLayers;
  card.encoderHeads = c.encoderHeads;
  card.encoderDHead = c.encoderHeadDim;
  card.encoderDInner = c.encoderFfn;
  card.sourceVocab = c.vocabSize;
  card.sharedVocabulary = c.sharedEmbeddings && c.vocabSize == c.decoderVocabSize;
  card.windows.assign(static_cast<std::size_t>(c.decoderLayers), 0);
  card.positions = c.isT5() ? 0 : c.maxPositions;  // T5: no table, so no length limit of its own
  if (c.isT5()) {
    card.positionKind = "relative bias, " + std::to_string(c.relativeBuckets) + " buckets up to distance " +
                        std::to_string(c.relativeMaxDistance) + " (no table bounds the length)";
  } else {
    card.positionKind = c.sinusoidalPositions ? "sinusoidal, computed" : "learned table (offset 2)";
  }
  if (const std::string rules = describeGenerationRules(c.generation); !rules.empty())
    card.generation = rules + " (" + c.generation.file + ")";
  const SafetensorsSet* set = m.model().weightFiles();
  std::string dir;
  if (isShippedEncDecName(modelDir)) {
    card.source = "compiled into the program (" + modelDir + ")";  // written to a temporary folder to be opened
  } else {
    card.source = dir = modelDir;
    for (const char* name : {"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
                             "special_tokens_map.json", "source.spm", "target.spm", "vocab.json", "spiece.model"})
      addFile(card, dir, name);
  }
  if (set) addWeights(*set, dir, card);
}

void describeTiny(const TinyModel& m, const std::string& modelDir, ModelCard& card) {
  const TinyConfig& c = m.config();
  card.family = "tiny";
  card.architecture = std::string(c.mlp ? "attention + MLP" : "attention-only") + ", " + toString(c.attention);
  card.kvHeads = c.heads;
  card.dInner = c.mlp ? c.dInner() : 0;
  card.vocab = c.vocab;
  card.windows.assign(static_cast<std::size_t>(c.layers), 0);
  card.positionKind = "learned table";
  card.parameters = m.params().parameterCount();
  card.weightBytes = static_cast<std::uint64_t>(card.parameters) * sizeof(float);
  card.dtypeBytes["F32"] = card.weightBytes;  // saved and held as F32 (tiny_checkpoint.h)
  if (isShippedModelName(modelDir)) {
    card.source = "compiled into the program (" + modelDir + ")";
  } else {
    card.source = modelDir;
    addFile(card, modelDir, "config.json");
    addFile(card, modelDir, "model.safetensors");
  }
}

}  // namespace

ModelCard modelCard(const Model& shown, const std::string& modelDir) {
  // A run recorded from Python (recorded_run.h) is shown on its model: the card is that model's.
  const auto* recorded = dynamic_cast<const RecordedRunModel*>(&shown);
  const Model& model = recorded ? recorded->inner() : shown;
  const ModelInfo info = model.info();
  ModelCard card;
  card.name = info.name;
  card.family = info.kind;
  card.layers = info.layers;
  card.heads = info.heads;
  card.kvHeads = info.kvHeads > 0 ? info.kvHeads : info.heads;
  card.dModel = info.dModel;
  card.dHead = info.dHead;
  card.positions = info.maxTokens;
  card.source = modelDir;
  if (const auto* hf = dynamic_cast<const HfModel*>(&model))
    describeHf(*hf, modelDir, card);
  else if (const auto* tiny = dynamic_cast<const TinyModel*>(&model))
    describeTiny(*tiny, modelDir, card);
  else if (const auto* encdec = dynamic_cast<const EncDecFolderModel*>(&model))
    describeEncDec(*encdec, modelDir, card);
  return card;
}

std::string describeWindows(const std::vector<int>& windows) {
  if (std::all_of(windows.begin(), windows.end(), [](int w) { return w == 0; })) return "none";
  if (std::all_of(windows.begin(), windows.end(), [&](int w) { return w == windows[0]; }))
    return std::to_string(windows[0]) + " on every layer";
  // Distinct windows in order of first appearance, each with its layers as runs: "4 on layers 0, 2; none on 1".
  std::vector<int> values;
  for (int w : windows)
    if (std::find(values.begin(), values.end(), w) == values.end()) values.push_back(w);
  std::string out;
  for (int w : values) {
    std::string layers;
    int count = 0;
    for (std::size_t l = 0; l < windows.size(); ++l) {
      if (windows[l] != w || (l > 0 && windows[l - 1] == w)) continue;
      std::size_t end = l;
      while (end + 1 < windows.size() && windows[end + 1] == w) ++end;
      layers += (layers.empty() ? "" : ", ") + std::to_string(l);
      if (end > l) layers += "–" + std::to_string(end);
      count += static_cast<int>(end - l + 1);
    }
    out += (out.empty() ? "" : "; ") + (w == 0 ? std::string("none") : std::to_string(w)) +
           (count == 1 ? " on layer " : " on layers ") + layers;
  }
  return out;
}

std::string describeDtypes(const std::map<std::string, std::uint64_t>& dtypeBytes) {
  std::vector<std::pair<std::string, std::uint64_t>> order(dtypeBytes.begin(), dtypeBytes.end());
  std::uint64_t total = 0;
  for (const auto& [name, bytes] : order) total += bytes;
  if (order.empty() || total == 0) return "";
  if (order.size() == 1) return order[0].first;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [name, bytes] : order) {
    const double percent = 100.0 * static_cast<double>(bytes) / static_cast<double>(total);
    char share[32];
    std::snprintf(share, sizeof share, percent < 1 ? "%.1f %%" : "%.0f %%", percent);
    out += (out.empty() ? "" : ", ") + name + " " + share;
  }
  return out;
}

}  // namespace attnlab
