// The card of an opened model (issue 31) against the tiny checkpoints' own configs: sizes, kv heads, windows and
// positions as config.json states them, the parameter count and stored bytes from the tensor shapes counted by hand
// (the formulas below, one tensor at a time), the files with the sizes the file system gives, and the resident set
// against /proc/self/statm read here.
#include <QtTest>

#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <fstream>

#include "core/checkpoint/checkpoint.h"
#include "core/compute/heap_policy.h"
#include "core/run/encdec_run.h"
#include "core/run/model_card.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string decoderDir(const std::string& name) {
  return std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/" + name;
}

std::vector<std::string> fileNames(const ModelCard& c) {
  std::vector<std::string> names;
  for (const ModelCardFile& f : c.files) names.push_back(f.name);
  return names;
}

/// Every file of the card has the size the file system gives it.
void checkSizes(const ModelCard& c) {
  for (const ModelCardFile& f : c.files)
    QCOMPARE(f.bytes, static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(c.source + "/" + f.name)).size()));
}

/// tests/reference/encdec/NAME's config.json and weights in `tmp` with builtin:reverse's tokenizer.json (24 pieces,
/// within every tiny vocabulary): an encoder–decoder folder opens with its tokenizer.
std::string encDecDir(const QTemporaryDir& tmp, const std::string& name) {
  const QString from = QString(ATTNLAB_TEST_DATA) + "/reference/encdec/" + QString::fromStdString(name);
  const QString dir = tmp.filePath(QString::fromStdString(name));
  QDir().mkpath(dir);
  for (const char* f : {"config.json", "model.safetensors"}) QFile::copy(from + "/" + f, dir + "/" + f);
  QFile::copy(QString::fromStdString(shippedEncDecFolder(kShippedReverseModel)) + "/tokenizer.json",
              dir + "/tokenizer.json");
  return dir.toStdString();
}

/// BART's tensors by hand (post-LN, biases everywhere): model.shared [V, d]; final_logits_bias [1, V] (Hugging Face
/// writes it, builtin:reverse's export does not: `logitsBias`); per stack
/// embed_positions [P + 2, d] and layernorm_embedding 2d; an encoder layer self_attn q, k, v, o [d, d] + d,
/// self_attn_layer_norm 2d, fc1 [F, d] + F, fc2 [d, F] + d, final_layer_norm 2d; a decoder layer that and encoder_attn
/// q, k, v, o [d, d] + d with encoder_attn_layer_norm 2d.
long long bartParameters(long long V, long long P, long long d, long long F, long long encL, long long decL,
                         bool logitsBias = true) {
  const long long attention = 4 * (d * d + d), norm = 2 * d, ffn = (F * d + F) + (d * F + d);
  return V * d + (logitsBias ? V : 0) + 2 * ((P + 2) * d + norm) + encL * (attention + norm + ffn + norm) +
         decL * (2 * (attention + norm) + ffn + norm);
}

}  // namespace

class TestModelCard : public QObject {
  Q_OBJECT
 private slots:
  void mistralWithASlidingWindowOnEveryLayer() {
    const std::string dir = decoderDir("mistral-window");
    const ModelCard c = modelCard(*loadCheckpoint(dir), dir);
    QCOMPARE(c.family, std::string("mistral"));
    QCOMPARE(c.architecture, std::string("decoder"));
    QVERIFY(c.causal);
    QCOMPARE(c.layers, 2);
    QCOMPARE(c.heads, 4);
    QCOMPARE(c.kvHeads, 2);
    QCOMPARE(c.dModel, 32);
    QCOMPARE(c.dHead, 8);  // head_dim null: 32 / 4
    QCOMPARE(c.dInner, 64);
    QCOMPARE(c.vocab, 422);
    QCOMPARE(c.windows, (std::vector<int>{4, 4}));
    QCOMPARE(describeWindows(c.windows), std::string("4 on every layer"));
    QCOMPARE(c.positions, 32768);
    QCOMPARE(c.positionKind, std::string("RoPE θ 10000"));
    // Untied: embed and lm_head [422, 32] each; per layer q [32, 32], k and v [16, 32] (2 kv heads of 8), o [32, 32],
    // gate and up [64, 32], down [32, 64], two norms [32]; the final norm [32].
    const long long perLayer = 32 * 32 + 2 * 16 * 32 + 32 * 32 + 2 * 64 * 32 + 32 * 64 + 2 * 32;
    const long long params = 2 * 422 * 32 + 2 * perLayer + 32;
    QCOMPARE(params, 45600LL);
    QCOMPARE(c.parameters, params);
    QCOMPARE(c.weightBytes, static_cast<std::uint64_t>(params * 4));
    QCOMPARE(describeDtypes(c.dtypeBytes), std::string("F32"));
    QCOMPARE(fileNames(c),
             (std::vector<std::string>{"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"}));
    checkSizes(c);
  }

  void gemma3SlidesOnEveryOtherLayerInBf16() {
    const std::string dir = decoderDir("gemma3-pattern");
    const ModelCard c = modelCard(*loadCheckpoint(dir), dir);
    QCOMPARE(c.family, std::string("gemma3"));
    QCOMPARE(c.kvHeads, 2);
    QCOMPARE(c.dHead, 16);  // explicit head_dim, not 32 / 4
    // sliding_window_pattern 2: layer l slides unless (l + 1) is a multiple of 2.
    QCOMPARE(c.windows, (std::vector<int>{4, 0, 4}));
    QCOMPARE(describeWindows(c.windows), std::string("4 on layers 0, 2; none on layer 1"));
    QCOMPARE(c.positions, 8192);
    QCOMPARE(c.positionKind, std::string("RoPE θ 1000000; sliding layers θ 10000"));
    // Tied: embed [423, 32] once; per layer q [64, 32], k and v [32, 32], o [32, 64], q/k norms [16], gate and up
    // [64, 32], down [32, 64], four norms [32]; the final norm.
    const long long perLayer = 64 * 32 + 2 * 32 * 32 + 32 * 64 + 2 * 16 + 2 * 64 * 32 + 32 * 64 + 4 * 32;
    const long long params = 423 * 32 + 3 * perLayer + 32;
    QCOMPARE(c.parameters, params);
    QCOMPARE(c.weightBytes, static_cast<std::uint64_t>(params * 2));  // BF16
    QCOMPARE(describeDtypes(c.dtypeBytes), std::string("BF16"));
  }

  void shardedLlama3ListsTheIndexAndItsShards() {
    const std::string dir = decoderDir("llama3-scaled");
    const ModelCard c = modelCard(*loadCheckpoint(dir), dir);
    QCOMPARE(c.family, std::string("llama"));
    QCOMPARE(c.positions, 512);
    QCOMPARE(c.positionKind, std::string("RoPE θ 10000, llama3 ×8"));
    QCOMPARE(describeWindows(c.windows), std::string("none"));
    QCOMPARE(fileNames(c), (std::vector<std::string>{"config.json", "tokenizer.json", "tokenizer_config.json",
                                                     "model.safetensors.index.json", "model-00001-of-00002.safetensors",
                                                     "model-00002-of-00002.safetensors"}));
    checkSizes(c);
    const long long perLayer = 64 * 64 + 2 * 32 * 64 + 64 * 64 + 3 * 96 * 64 + 2 * 64;
    QCOMPARE(c.parameters, 409LL * 64 + 2 * perLayer + 64);
    QCOMPARE(c.weightBytes, static_cast<std::uint64_t>(c.parameters * 2));
  }

  void gpt2HasALearnedPositionTable() {
    const std::string dir = std::string(ATTNLAB_TEST_DATA) + "/fixtures/lm-buddy/tiny_gpt2";
    const ModelCard c = modelCard(*loadCheckpoint(dir), dir);
    QCOMPARE(c.family, std::string("gpt2"));
    QCOMPARE(c.kvHeads, 1);
    QCOMPARE(c.dInner, 8);  // n_inner null: 4 · n_embd
    QCOMPARE(c.positions, 1024);
    QCOMPARE(c.positionKind, std::string("learned table"));
    // wte [21, 2], wpe [1024, 2]; ln_1, ln_2, ln_f 2 + 2 each; c_attn [2, 6] + 6; c_proj [2, 2] + 2; c_fc [2, 8] + 8;
    // mlp c_proj [8, 2] + 2.
    QCOMPARE(c.parameters, 21LL * 2 + 1024 * 2 + 3 * 4 + (12 + 6) + (4 + 2) + (16 + 8) + (16 + 2));
    QCOMPARE(fileNames(c), (std::vector<std::string>{"config.json", "tokenizer_config.json", "special_tokens_map.json",
                                                     "vocab.json", "merges.txt", "model.safetensors"}));
  }

  void theShippedInductionModelIsCompiledIn() {
    const ModelCard c = modelCard(*loadShippedModel(kShippedInductionModel), kShippedInductionModel);
    QCOMPARE(c.family, std::string("tiny"));
    QCOMPARE(c.architecture, std::string("attention-only, softmax"));
    QVERIFY(c.files.empty());
    QVERIFY(c.source.find("compiled into the program") != std::string::npos);
    QCOMPARE(c.positions, 33);
    // tok_emb [128, 64], pos_emb [33, 64], per layer LayerNorm 2 · 64 and wq, wk, wv, wo [64, 64]; ln_f 2 · 64;
    // unembed [64, 128].
    const long long params = 128 * 64 + 33 * 64 + 2 * (2 * 64 + 4 * 64 * 64) + 2 * 64 + 64 * 128;
    QCOMPARE(c.parameters, params);
    QCOMPARE(c.weightBytes, static_cast<std::uint64_t>(params * 4));
  }

  /// An encoder–decoder's card names both stacks; parameters and bytes are its tensors' (issue 33: it showed
  /// "bart · , causal", vocabulary 0, parameters 0).
  void bartEncoderDecoder() {
    QTemporaryDir tmp;
    const std::string dir = encDecDir(tmp, "bart");
    const ModelCard c = modelCard(*openEncDecModel(dir), dir);
    QVERIFY(c.encoderDecoder);
    QCOMPARE(c.family, std::string("bart"));
    QCOMPARE(c.architecture, std::string("encoder–decoder"));
    QCOMPARE(c.encoderLayers, 2);
    QCOMPARE(c.layers, 2);
    QCOMPARE(c.encoderHeads, 2);
    QCOMPARE(c.heads, 2);
    QCOMPARE(c.dModel, 16);
    QCOMPARE(c.dHead, 8);
    QCOMPARE(c.encoderDHead, 8);
    QCOMPARE(c.dInner, 32);
    QCOMPARE(c.vocab, 96);
    QCOMPARE(c.sourceVocab, 96);
    QVERIFY(c.sharedVocabulary);
    QCOMPARE(c.positions, 64);
    QCOMPARE(c.positionKind, std::string("learned table (offset 2)"));
    // 1536 + 96 + 2 · (1056 + 32) + 2 · 2224 + 2 · 3344 = 14944 elements, stored as F32.
    const long long params = bartParameters(96, 64, 16, 32, 2, 2);
    QCOMPARE(params, 14944LL);
    QCOMPARE(c.parameters, params);
    QCOMPARE(c.weightBytes, static_cast<std::uint64_t>(params * 4));
    QCOMPARE(describeDtypes(c.dtypeBytes), std::string("F32"));
    QCOMPARE(fileNames(c), (std::vector<std::string>{"config.json", "tokenizer.json", "model.safetensors"}));
    checkSizes(c);
  }

  /// Marian with two vocabularies (source 96, target 80, share_encoder_decoder_embeddings false) and sinusoidal
  /// positions (no table): encoder embed_tokens [96, 16], decoder embed_tokens and lm_head [80, 16],
  /// final_logits_bias [1, 80]; layers as BART's with F = 24.
  void marianWithSeparateVocabularies() {
    QTemporaryDir tmp;
    const std::string dir = encDecDir(tmp, "marian-separate");
    const ModelCard c = modelCard(*openEncDecModel(dir), dir);
    QCOMPARE(c.family, std::string("marian"));
    QCOMPARE(c.sourceVocab, 96);
    QCOMPARE(c.vocab, 80);
    QVERIFY(!c.sharedVocabulary);
    QCOMPARE(c.heads, 4);
    QCOMPARE(c.dHead, 4);
    QCOMPARE(c.positions, 512);
    QCOMPARE(c.positionKind, std::string("sinusoidal, computed"));
    const long long d = 16, F = 24, attention = 4 * (d * d + d), norm = 2 * d, ffn = (F * d + F) + (d * F + d);
    const long long params =
        96 * d + 80 * d + 80 * d + 80 + 2 * (attention + norm + ffn + norm) + 2 * (2 * (attention + norm) + ffn + norm);
    QCOMPARE(c.parameters, params);
    QCOMPARE(c.weightBytes, static_cast<std::uint64_t>(params * 4));
  }

  /// T5 v1.1 (gated-GELU, untied lm_head, no biases, d_kv 4 × 4 heads, 2 encoder + 3 decoder layers, 8 buckets): no
  /// position table, so no length of its own. shared and lm_head [96, 16]; per stack relative_attention_bias [8, 4] in
  /// block 0 and final_layer_norm 16; an encoder block q, k, v, o [16, 16], wi_0, wi_1 [24, 16], wo [16, 24], two
  /// norms 16; a decoder block that and EncDecAttention q, k, v, o [16, 16] with its norm 16.
  void t5HasRelativePositionsOnly() {
    QTemporaryDir tmp;
    const std::string dir = encDecDir(tmp, "t5-v1_1");
    const ModelCard c = modelCard(*openEncDecModel(dir), dir);
    QCOMPARE(c.family, std::string("t5"));
    QCOMPARE(c.encoderLayers, 2);
    QCOMPARE(c.layers, 3);
    QCOMPARE(c.heads, 4);
    QCOMPARE(c.dHead, 4);
    QCOMPARE(c.dInner, 24);
    QCOMPARE(c.positions, 0);
    QCOMPARE(c.positionKind, std::string("relative bias, 8 buckets up to distance 20 (no table bounds the length)"));
    const long long d = 16, F = 24, attention = 4 * d * d, ffn = 3 * F * d;
    const long long params =
        2 * 96 * d + 2 * (8 * 4 + d) + 2 * (attention + d + ffn + d) + 3 * (2 * (attention + d) + ffn + d);
    QCOMPARE(params, 17328LL);
    QCOMPARE(c.parameters, params);
  }

  /// builtin:reverse (the window's "Positions 11 ·", "Vocabulary 0"): a BART compiled into the program, its sizes
  /// from its config, its parameters its tensors' (hand formula on the config's sizes).
  void theShippedReverseModelIsAnEncoderDecoder() {
    const auto m = openEncDecModel(shippedEncDecFolder(kShippedReverseModel), {}, kShippedReverseModel);
    const EncDecConfig& k = m->model().config();
    const ModelCard c = modelCard(*m, kShippedReverseModel);
    QCOMPARE(c.name, std::string(kShippedReverseModel));
    QCOMPARE(c.family, std::string("bart"));
    QCOMPARE(c.encoderLayers, 1);
    QCOMPARE(c.layers, 1);
    QCOMPARE(c.vocab, 24);
    QCOMPARE(c.positions, 11);
    QCOMPARE(c.positionKind, std::string("learned table (offset 2)"));
    QVERIFY(c.files.empty());
    QVERIFY(c.source.find("compiled into the program") != std::string::npos);
    const long long params = bartParameters(k.vocabSize, k.maxPositions, k.dModel, k.decoderFfn, 1, 1, false);
    QCOMPARE(params, 23104LL);  // 24 · 32 + 2 · (13 · 32 + 64) + 8544 + 12832
    QCOMPARE(c.parameters, params);
    QCOMPARE(c.weightBytes, static_cast<std::uint64_t>(params * 4));
    // The window's card reads a two-text result's whole model, not the decoder's stack.
    Params p;
    p.sentence = "d c b a";
    const PipelineResult r = runEncDecPipeline(p, m);
    QCOMPARE(wholeModel(r).get(), static_cast<const Model*>(m.get()));
    QCOMPARE(modelCard(*wholeModel(r), kShippedReverseModel).parameters, params);
  }

  void dtypeSharesAndWindowRuns() {
    QCOMPARE(describeDtypes({{"F32", 2}, {"BF16", 98}}), std::string("BF16 98 %, F32 2 %"));
    QCOMPARE(describeWindows({512, 512, 512, 0, 512, 512}), std::string("512 on layers 0–2, 4–5; none on layer 3"));
    QCOMPARE(describeWindows({}), std::string("none"));
  }

  void residentMemoryIsTheProcesssStatm() {
    const std::uint64_t before = readStatm();
    const std::uint64_t card = static_cast<std::uint64_t>(residentBytes());
    const std::uint64_t after = readStatm();
    QVERIFY(card > 0);
    // The resident set moves a little between the reads (allocations of the test harness): the card's read lies
    // within 64 pages of them.
    const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    QVERIFY2(card + 64 * page >= std::min(before, after) && card <= std::max(before, after) + 64 * page,
             qPrintable(QString("%1 vs %2 .. %3").arg(card).arg(before).arg(after)));
  }

 private:
  static std::uint64_t readStatm() {
    std::ifstream f("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    f >> size >> resident;
    return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestModelCard)
#include "test_model_card.moc"
