// Today's decoder families (llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3) against the independent
// float64 PyTorch pass of tests/reference/make_decoder_reference.py: for each tiny checkpoint of
// tests/reference/decoders/ (GQA, RoPE scalings, biases, q/k norms, sliding windows, soft-caps, tied and
// untied heads, F32/F16/BF16, sharded) every q, k, v, score, attention map, block output, the final norm
// and the logits match to ≤ 1e-4 (relative above 1, absolute below), on a short and a ≥ 24-token input.
#include <QtTest>

#include <QDir>
#include <QTemporaryDir>

#include <memory>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/decoder_model.h"
#include "core/model/layer_outputs.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

constexpr double kTolerance = 1e-4;

std::string decoderDir(const QString& name) {
  return std::string(ATTNLAB_TEST_DATA) + "/reference/decoders/" + name.toStdString();
}

/// The model without its tokenizer: these tests feed the reference's token ids.
std::unique_ptr<DecoderModel> openModel(const std::string& dir) {
  HfConfig config = readHfConfig(dir + "/config.json");
  return std::make_unique<DecoderModel>(std::move(config), nullptr, openCheckpointWeights(dir),
                                        checkpointFolderName(dir));
}

Mat toMat(const nlohmann::json& rows) {
  Mat m(static_cast<Eigen::Index>(rows.size()), rows.empty() ? 0 : static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = rows[i][j].get<float>();
  return m;
}

double worstError = 0;

bool close(const Mat& got, const nlohmann::json& expected, const QString& what) {
  const Mat e = toMat(expected);
  if (got.rows() == e.rows() && got.cols() == e.cols() && got.size() > 0)
    worstError = std::max(worstError, double(((got - e).array().abs() / e.array().abs().max(1.0f)).maxCoeff()));
  std::string why;
  if (test::matricesClose(got, e, kTolerance, &why)) return true;
  qWarning("%s: %s", qPrintable(what), why.c_str());
  return false;
}

TokenizedText fromIds(const nlohmann::json& ids) {
  TokenizedText t;
  for (const auto& id : ids) {
    t.ids.push_back(id.get<int>());
    t.tokens.push_back(Token{std::to_string(id.get<int>())});
  }
  return t;
}

}  // namespace

class TestDecoderModels : public QObject {
  Q_OBJECT
 private slots:
  void matchesReference_data() {
    QTest::addColumn<QString>("name");
    for (const char* n :
         {"llama-gqa", "llama3-scaled", "llama-linear-bias", "llama-dynamic", "mistral-window", "qwen2-bias",
          "qwen3-norms", "gemma-mqa", "gemma2-softcap", "gemma3-pattern", "gemma3-layer-types"})
      QTest::newRow(n) << QString(n);
  }

  void matchesReference() {
    QFETCH(QString, name);
    const std::string dir = decoderDir(name);
    const auto model = openModel(dir);
    const nlohmann::json ref = readJsonFile(dir + "/reference.json");
    QCOMPARE(QString::fromStdString(model->info().kind),
             QString::fromStdString(ref["family"].get<std::string>()).replace("gemma3_text", "gemma3"));
    for (const auto& run : ref["runs"]) {
      const Trace t = model->forward(fromIds(run["token_ids"]));
      const int n = t.tokenCount();
      QVERIFY(n >= 8);
      bool ok = close(t.embeddings, run["embeddings"], "embeddings");
      for (int l = 0; l < t.layerCount(); ++l) {
        const LayerTrace& lt = t.layers[l];
        const nlohmann::json& rl = run["layers"][l];
        const QString at = QString("%1 tokens, layer %2").arg(n).arg(l);
        for (int h = 0; h < t.headCount(); ++h) {
          const int g = t.kvHeadOf(h);
          ok &= close(lt.heads[h].q, rl["q"][h], at + QString(" q head %1").arg(h));
          ok &= close(lt.heads[h].k(), rl["k"][g], at + QString(" k head %1 (kv %2)").arg(h).arg(g));
          ok &= close(lt.heads[h].v(), rl["v"][g], at + QString(" v head %1").arg(h));
          ok &= close(lt.heads[h].scores, rl["scores"][h], at + QString(" scores head %1").arg(h));
          ok &= close(lt.heads[h].attention, rl["attention"][h], at + QString(" attention head %1").arg(h));
        }
        const bool sandwich = rl.contains("attention_out_normed");
        ok &=
            close(attentionOutOf(t, l), rl[sandwich ? "attention_out_normed" : "attention_out"], at + " attention out");
        ok &= close(mlpOutOf(t, l), rl[sandwich ? "mlp_out_normed" : "mlp_out"], at + " mlp out");
        ok &= close(lt.residualOut, rl["residual_out"], at + " residual out");
      }
      const Mat last = t.layers.back().residualOut;
      ok &= close(model->finalNorm(last), run["final_norm"], "final norm");
      ok &= close(model->logits(last), run["logits"], "logits");
      QVERIFY2(ok, qPrintable(name + ": see the warnings above"));
    }
  }

  // The whole folder as the program opens it: its tokenizer.json through the general engine gives the ids
  // Hugging Face's own tokenizers gave the reference, and the forward pass on them is the reference's.
  void opensTheFolderWithItsTokenizer_data() { matchesReference_data(); }
  void opensTheFolderWithItsTokenizer() {
    QFETCH(QString, name);
    const std::string dir = decoderDir(name);
    const auto model = loadCheckpoint(dir);
    const nlohmann::json ref = readJsonFile(dir + "/reference.json");
    for (const auto& run : ref["runs"]) {
      const TokenizedText t = model->tokenize(run["text"].get<std::string>());
      QCOMPARE(nlohmann::json(t.ids), run["token_ids"]);
    }
    const nlohmann::json& last = ref["runs"].back();
    const Trace t = model->forward(model->tokenize(last["text"].get<std::string>()));
    QVERIFY(close(t.layers.back().residualOut, last["layers"].back()["residual_out"], "residual out"));
    // SentencePiece-style files (byte fallback to <0xNN>) show "▁" pieces; the others are byte-level.
    const bool sentencePiece = readJsonFile(dir + "/tokenizer.json")["model"].value("byte_fallback", false);
    const std::string style = model->info().pieceStyle;
    QVERIFY2(style == (sentencePiece ? "metaspace" : "byte-level"), style.c_str());
  }

  void kvHeadsAreSharedWithinAGroup() {
    const auto model = openModel(decoderDir("llama-gqa"));  // 4 query heads over 2 kv heads
    QCOMPARE(model->info().kvHeads, 2);
    const nlohmann::json ref = readJsonFile(decoderDir("llama-gqa") + "/reference.json");
    const Trace t = model->forward(fromIds(ref["runs"][0]["token_ids"]));
    QCOMPARE(t.kvHeadOf(0), 0);
    QCOMPARE(t.kvHeadOf(1), 0);
    QCOMPARE(t.kvHeadOf(3), 1);
    QCOMPARE(t.layers[0].heads[0].keys.get(), t.layers[0].heads[1].keys.get());  // one copy per kv head
    QVERIFY(t.layers[0].heads[0].k() != t.layers[0].heads[2].k());
  }

  // Bad input: each refused with a message naming the file and the problem.
  void badCheckpointsAreRefusedByName_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing shard")
        << "llama3-scaled"
        << "rm:model-00002-of-00002.safetensors"
        << "names the shard \"model-00002-of-00002.safetensors\", which is not in the folder";
    QTest::newRow("tensor in the wrong shard")
        << "llama3-scaled"
        << "index:model.norm.weight=model-00001-of-00002.safetensors"
        << "places tensor \"model.norm.weight\" in model-00001-of-00002.safetensors, which does not hold it";
    QTest::newRow("shard with a path") << "llama3-scaled"
                                       << "index:model.norm.weight=../x.safetensors"
                                       << "must be a file name in the same folder";
    QTest::newRow("shape contradicts config") << "llama-gqa"
                                              << "config:intermediate_size=100"
                                              << "but config.json implies [100, ";
    QTest::newRow("yarn") << "llama-gqa"
                          << "config:rope_scaling={\"rope_type\": \"yarn\", \"factor\": 4}"
                          << "rope_scaling type yarn is not supported";
    QTest::newRow("partial rotary") << "llama-gqa"
                                    << "config:partial_rotary_factor=0.5"
                                    << "partial_rotary_factor 0.5 is not supported";
    QTest::newRow("uneven groups") << "llama-gqa"
                                   << "config:num_key_value_heads=3"
                                   << "4 attention heads cannot share 3 key/value heads evenly";
    QTest::newRow("untied without lm_head") << "qwen2-bias"
                                            << "config:tie_word_embeddings=false"
                                            << "\"lm_head.weight\" is missing and tie_word_embeddings is false";
    QTest::newRow("unknown layer type") << "gemma3-layer-types"
                                        << "config:layer_types=[\"full_attention\", \"chunked\", \"full_attention\"]"
                                        << "layer type \"chunked\" is not supported";
  }

  void badCheckpointsAreRefusedByName() {
    QFETCH(QString, source);
    QFETCH(QString, edit);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/" + source;
    QDir().mkpath(dir);
    for (const QFileInfo& f : QDir(QString::fromStdString(decoderDir(source))).entryInfoList(QDir::Files))
      QVERIFY(QFile::copy(f.filePath(), dir + "/" + f.fileName()));
    const QString kind = edit.section(':', 0, 0), what = edit.section(':', 1);
    if (kind == "rm") QVERIFY(QFile::remove(dir + "/" + what));
    if (kind == "config" || kind == "index") {
      const std::string file =
          (dir + (kind == "config" ? "/config.json" : "/model.safetensors.index.json")).toStdString();
      nlohmann::json j = readJsonFile(file);
      nlohmann::json& target = kind == "config" ? j : j["weight_map"];
      const std::string key = what.section('=', 0, 0).toStdString(), value = what.section('=', 1).toStdString();
      target[key] = kind == "index" ? nlohmann::json(value) : nlohmann::json::parse(value);
      QFile out(QString::fromStdString(file));
      QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
      out.write(QByteArray::fromStdString(j.dump()));
    }
    try {
      openModel(dir.toStdString());
      QFAIL("the checkpoint was accepted");
    } catch (const InputError& e) {
      const QString message = QString::fromUtf8(e.what());
      QVERIFY2(message.contains(expected), qPrintable(message));
      QVERIFY2(message.contains(dir) || message.contains(source), qPrintable(message));  // names the file
    }
  }

  void cleanupTestCase() { qInfo("worst relative error over every decoder checkpoint: %.2e", worstError); }
};

ATTNLAB_TEST_GUILESS_MAIN(TestDecoderModels)
#include "test_decoder_models.moc"
