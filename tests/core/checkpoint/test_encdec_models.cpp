// Marian, BART and T5 encoder–decoders (issue 33) against the independent float64 pass of
// tests/reference/make_encdec_reference.py, on tiny checkpoints in Hugging Face's layout (Marian tied with one shared
// table, Marian with separate source/target vocabularies and an untied lm_head, BART with learned positions and
// layernorm_embedding, T5 v1.0 (ReLU, tied, d_kv·heads ≠ d), v1.1 (gated GELU, untied, 3 decoder layers over 2) and
// t5-spm (v1.1 over t5like's SentencePiece vocabulary, 40 greedy steps),
// texts long enough for T5's logarithmic position buckets): every encoder, decoder and cross-attention q, k, v, score
// and attention map, every block output and the logits match to ≤ 1e-4 (relative above 1, absolute below); the cached
// decoding step equals the full recomputation; greedy generation equals the reference's loop token for token; bad
// folders get clear messages.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <fstream>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/checkpoint.h"
#include "core/checkpoint/encdec_folder.h"
#include "core/checkpoint/encdec_model.h"
#include "core/checkpoint/hf_config.h"
#include "core/checkpoint/safetensors.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

constexpr double kTolerance = 1e-4;
double worstError = 0;

std::string refDir(const QString& name) {
  return std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/" + name.toStdString();
}

Mat toMat(const nlohmann::json& rows) {
  Mat m(static_cast<Eigen::Index>(rows.size()), rows.empty() ? 0 : static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = rows[i][j].get<float>();
  return m;
}

bool close(const Mat& got, const nlohmann::json& expected, const std::string& what) {
  const Mat e = toMat(expected);
  if (got.rows() == e.rows() && got.cols() == e.cols() && got.size() > 0)
    worstError = std::max(worstError, double(((got - e).array().abs() / e.array().abs().max(1.0f)).maxCoeff()));
  std::string why;
  if (test::matricesClose(got, e, kTolerance, &why)) return true;
  qWarning("%s: %s", what.c_str(), why.c_str());
  return false;
}

std::vector<int> ids(const nlohmann::json& j) { return j.get<std::vector<int>>(); }

/// Every head's q, k, v, scores and attention, then the attention output, of one layer's heads.
int compareHeads(const std::vector<HeadTrace>& heads, const Mat& attentionOut, const nlohmann::json& r,
                 const std::string& where) {
  int bad = 0;
  if (heads.size() != r["q"].size()) return 1;
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const std::string w = where + " head " + std::to_string(h);
    bad += !close(heads[h].q, r["q"][h], w + " q");
    bad += !close(heads[h].k(), r["k"][h], w + " k");
    bad += !close(heads[h].v(), r["v"][h], w + " v");
    bad += !close(heads[h].scores, r["scores"][h], w + " scores");
    bad += !close(heads[h].attention, r["attention"][h], w + " attention");
  }
  bad += !close(attentionOut, r["attention_out"], where + " attention_out");
  return bad;
}

int compareStack(const Trace& t, const nlohmann::json& r, const std::string& stack) {
  int bad = !close(t.embeddings, r["embeddings"], stack + " embeddings");
  if (t.layers.size() != r["layers"].size()) return bad + 1;
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    const std::string where = stack + " layer " + std::to_string(l);
    const nlohmann::json& lr = r["layers"][l];
    bad += compareHeads(t.layers[l].heads, t.layers[l].attentionOut, lr, where + " self");
    bad += !close(t.layers[l].mlpOut, lr["mlp_out"], where + " mlp_out");
    bad += !close(t.layers[l].residualOut, lr["residual_out"], where + " residual_out");
  }
  return bad;
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
}

std::string readAll(const std::string& path) { return readTextFile(path); }

/// A copy of checkpoint `name` in `to`, its config.json edited by `edit`.
void copyWithConfig(const QString& name, const QString& to, const std::function<void(nlohmann::json&)>& edit) {
  const QString from = QString::fromStdString(refDir(name));
  for (const QString& f : QDir(from).entryList(QDir::Files)) QFile::copy(from + "/" + f, to + "/" + f);
  nlohmann::json c = readJsonFile(refDir(name) + "/config.json");
  edit(c);
  QFile::remove(to + "/config.json");
  writeFile(to.toStdString() + "/config.json", c.dump());
}

/// model.safetensors of `dir` with tensor `name` renamed to `renamed` (the header rewritten, the data kept).
void renameTensor(const std::string& dir, const std::string& name, const std::string& renamed) {
  const std::string path = dir + "/model.safetensors";
  const std::string bytes = readAll(path);
  std::uint64_t len = 0;
  for (int i = 7; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, len));
  header[renamed] = header[name];
  header.erase(name);
  std::string text = header.dump();
  while (text.size() % 8) text += ' ';
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  writeFile(path, out + text + bytes.substr(8 + len));
}

std::string errorOf(const std::string& dir) {
  try {
    EncDecModel::open(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

class TestEncDecModels : public QObject {
  Q_OBJECT

 private slots:
  void matchesReference_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("marian-tied") << "marian-tied";
    QTest::newRow("marian-separate") << "marian-separate";
    QTest::newRow("bart") << "bart";
    QTest::newRow("t5-v1_0") << "t5-v1_0";
    QTest::newRow("t5-v1_1") << "t5-v1_1";
    QTest::newRow("marian-spm") << "marian-spm";
    QTest::newRow("t5-spm") << "t5-spm";
  }

  /// Every map, block output and logit of both stacks and of the cross-attention.
  void matchesReference() {
    QFETCH(QString, name);
    const nlohmann::json ref = readJsonFile(refDir(name) + "/reference.json");
    const std::shared_ptr<EncDecModel> m = EncDecModel::open(refDir(name));
    const EncDecTrace t = m->forward(ids(ref["source_ids"]), ids(ref["target_ids"]));
    QCOMPARE(t.encoder.causal, false);
    QCOMPARE(t.decoder.causal, true);
    int bad = compareStack(t.encoder, ref["encoder"], "encoder") + compareStack(t.decoder, ref["decoder"], "decoder");
    QCOMPARE(t.cross.size(), ref["decoder"]["layers"].size());
    for (std::size_t l = 0; l < t.cross.size(); ++l) {
      const CrossLayerTrace& c = t.cross[l];
      bad += compareHeads(c.heads, c.attentionOut, ref["decoder"]["layers"][l]["cross"],
                          "decoder layer " + std::to_string(l) + " cross");
      QCOMPARE(c.heads[0].attention.rows(), static_cast<Eigen::Index>(ref["target_ids"].size()));
      QCOMPARE(c.heads[0].attention.cols(), static_cast<Eigen::Index>(ref["source_ids"].size()));
      QCOMPARE(c.heads[0].options.causal, false);
    }
    if (ref["encoder"].contains("output")) {  // T5's final norms
      bad += !close(t.encoderOut, ref["encoder"]["output"], "encoder output");
      bad += !close(t.decoderOut, ref["decoder"]["output"], "decoder output");
    }
    bad += !close(t.logits, ref["logits"], "logits");
    QCOMPARE(bad, 0);
    // The encoder alone gives the same output as inside forward().
    QVERIFY(test::matricesClose(m->encode(ids(ref["source_ids"])), t.encoderOutput(), 1e-6, nullptr));
  }

  void cachedStepEqualsRecomputation_data() { matchesReference_data(); }

  /// Each step's logits (cross K/V made once, self K/V appended) equal the last row of a full forward pass.
  void cachedStepEqualsRecomputation() {
    QFETCH(QString, name);
    const nlohmann::json ref = readJsonFile(refDir(name) + "/reference.json");
    const std::shared_ptr<EncDecModel> m = EncDecModel::open(refDir(name));
    const std::vector<int> src = ids(ref["source_ids"]), tgt = ids(ref["target_ids"]);
    const Mat full = m->forward(src, tgt).logits;  // [n_tgt, vocab]
    auto s = m->startDecoding(src);
    for (std::size_t i = 0; i < tgt.size(); ++i) {
      const Vec step = s->step(tgt[i]);
      std::string why;
      QVERIFY2(test::matricesClose(Mat(step.transpose()), Mat(full.row(static_cast<Eigen::Index>(i))), 1e-5, &why),
               why.c_str());
    }
    QCOMPARE(s->position(), static_cast<int>(tgt.size()));
  }

  /// A session holds a shared owner of its model: after every other owner let go, its steps still give the
  /// reference's logits, row by row. A model no shared_ptr owns cannot start one (a reference would dangle).
  void sessionOutlivesItsModel() {
    const nlohmann::json ref = readJsonFile(refDir("bart") + "/reference.json");
    std::shared_ptr<EncDecModel> m = EncDecModel::open(refDir("bart"));
    const std::weak_ptr<EncDecModel> watch = m;
    auto s = m->startDecoding(ids(ref["source_ids"]));
    m.reset();
    QVERIFY(!watch.expired());  // the session keeps it
    const std::vector<int> tgt = ids(ref["target_ids"]);
    for (std::size_t i = 0; i < tgt.size(); ++i)
      QVERIFY(close(Mat(s->step(tgt[i]).transpose()), nlohmann::json::array({ref["logits"][i]}),
                    "step " + std::to_string(i)));
    s.reset();
    QVERIFY(watch.expired());  // and only it
    const EncDecModel unowned(readEncDecConfig(refDir("bart") + "/config.json"), openCheckpointWeights(refDir("bart")));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, unowned.startDecoding({0, 2}));
  }

  /// tokenizer_config.json's separate_vocabs that is not a boolean: a message naming the file and the field (it was
  /// the JSON library's type error).
  void separateVocabsNotABoolean() {
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/marian";
    QDir(tmp.path()).mkdir("marian");
    copyWithConfig("marian-spm", dir, [](nlohmann::json&) {});
    const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/marian";
    for (const QString& f : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + f, dir + "/" + f);
    const std::string cfgPath = dir.toStdString() + "/tokenizer_config.json";
    nlohmann::json cfg = readJsonFile(cfgPath);
    for (const nlohmann::json& bad : {nlohmann::json("yes"), nlohmann::json(1), nlohmann::json::array()}) {
      cfg["separate_vocabs"] = bad;
      std::ofstream(cfgPath) << cfg.dump();
      try {
        openEncDecFolder(dir.toStdString());
        QFAIL("a non-boolean separate_vocabs was accepted");
      } catch (const InputError& e) {
        const std::string want = cfgPath + ": \"separate_vocabs\" must be true or false, not " + bad.dump();
        QVERIFY2(std::string(e.what()) == want, e.what());
      }
    }
    cfg["separate_vocabs"] = false;
    std::ofstream(cfgPath) << cfg.dump();
    QVERIFY(openEncDecFolder(dir.toStdString()).source->vocabSize() == 396);
  }

  void greedyEqualsReference_data() { matchesReference_data(); }

  void greedyEqualsReference() {
    QFETCH(QString, name);
    const nlohmann::json ref = readJsonFile(refDir(name) + "/reference.json");
    const std::shared_ptr<EncDecModel> m = EncDecModel::open(refDir(name));
    const std::vector<int> got = m->generateGreedy(ids(ref["source_ids"]), ref["greedy"]["max_new_tokens"]);
    QCOMPARE(got, ids(ref["greedy"]["tokens"]));
  }

  /// Without final_logits_bias (a checkpoint saved from BartModel, like facebook/bart-base) the bias is zero: the
  /// logits are the reference's minus the stored bias, read from the file itself.
  void missingFinalLogitsBiasIsZero() {
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/nobias";
    QDir(tmp.path()).mkdir("nobias");
    copyWithConfig("bart", dir, [](nlohmann::json&) {});
    renameTensor(dir.toStdString(), "final_logits_bias", "final_logits_bias_unused");
    const nlohmann::json ref = readJsonFile(refDir("bart") + "/reference.json");
    const Mat logits =
        EncDecModel::open(dir.toStdString())->forward(ids(ref["source_ids"]), ids(ref["target_ids"])).logits;
    SafetensorsFile f(refDir("bart") + "/model.safetensors");
    const float* bias = f.floats(*f.find("final_logits_bias"));
    Mat expected = toMat(ref["logits"]);
    for (Eigen::Index j = 0; j < expected.cols(); ++j) expected.col(j).array() -= bias[j];
    std::string why;
    QVERIFY2(test::matricesClose(logits, expected, kTolerance, &why), why.c_str());
    QVERIFY(std::abs(bias[0]) > 1e-3);  // the reference's bias is not zero: the comparison bites
  }

  /// The folder with its tokenizers: tests/reference/tokenizers/spm/marian's files beside marian-spm's weights (396
  /// pieces). The source text's ids are python sentencepiece's (eos appended), the model runs on them as the reference
  /// did, and greedy generation decodes to the reference's tokens; a tokenizer larger than the model is refused.
  void folderWithTokenizers() {
    QTemporaryDir tmp;
    const QString dir = tmp.path() + "/marian";
    QDir(tmp.path()).mkdir("marian");
    copyWithConfig("marian-spm", dir, [](nlohmann::json&) {});
    const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/marian";
    for (const QString& f : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + f, dir + "/" + f);
    const nlohmann::json tok =
        readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/reference.json");
    const nlohmann::json ref = readJsonFile(refDir("marian-spm") + "/reference.json");
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const TokenizedText src = f.source->encode(tok["texts"][0].get<std::string>(), true);
    QCOMPARE(src.ids, ids(ref["source_ids"]));
    QCOMPARE(src.ids, ids(tok["marian"][0]["ids"]));
    const std::vector<int> got = f.model->generateGreedy(src.ids, ref["greedy"]["max_new_tokens"]);
    QCOMPARE(got, ids(ref["greedy"]["tokens"]));
    QVERIFY(!f.target->pieceOf(got[0]).empty());
    // The same tokenizer beside a 96-token model.
    const QString small = tmp.path() + "/small";
    QDir(tmp.path()).mkdir("small");
    copyWithConfig("marian-tied", small, [](nlohmann::json&) {});
    for (const QString& file : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + file, small + "/" + file);
    try {
      openEncDecFolder(small.toStdString());
      QFAIL("a 396-token tokenizer was accepted for a 96-token model");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("the source tokenizer has 396 tokens, but config.json's vocab_size is 96") !=
                   std::string::npos,
               e.what());
    }
    // No tokenizer files at all: the loader's message.
    const QString none = tmp.path() + "/none";
    QDir(tmp.path()).mkdir("none");
    copyWithConfig("marian-tied", none, [](nlohmann::json&) {});
    try {
      openEncDecFolder(none.toStdString());
      QFAIL("a folder without tokenizer files was accepted");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("tokenizer") != std::string::npos, e.what());
    }
  }

  /// T5's buckets against T5Attention._relative_position_bucket worked by hand for t5-small's 32 buckets and
  /// max distance 128: bidirectional 16 halves of 8 exact and 8 logarithmic; causal 32 of 16 exact and 16 logarithmic.
  void t5Buckets() {
    QCOMPARE(t5RelativeBucket(0, true, 32, 128), 0);
    QCOMPARE(t5RelativeBucket(3, true, 32, 128), 16 + 3);  // key after the query: the upper half
    QCOMPARE(t5RelativeBucket(-3, true, 32, 128), 3);
    // |rel| = 12: 8 + ⌊ln(12/8)/ln(128/8)·8⌋ = 8 + ⌊1.169⌋ = 9
    QCOMPARE(t5RelativeBucket(-12, true, 32, 128), 9);
    QCOMPARE(t5RelativeBucket(12, true, 32, 128), 16 + 9);
    QCOMPARE(t5RelativeBucket(-1000, true, 32, 128), 15);  // clamped to the last bucket
    QCOMPARE(t5RelativeBucket(5, false, 32, 128), 0);      // causal: a later key counts as distance 0
    QCOMPARE(t5RelativeBucket(-15, false, 32, 128), 15);
    // rel −64: 16 + ⌊ln(64/16)/ln(128/16)·16⌋ = 16 + ⌊10.667⌋ = 26
    QCOMPARE(t5RelativeBucket(-64, false, 32, 128), 26);
    QCOMPARE(t5RelativeBucket(-127, false, 32, 128), 31);
  }

  /// Ids outside either vocabulary, empty and too-long texts, a step past the positions: InputError, no crash.
  void badInputs() {
    const std::shared_ptr<EncDecModel> m = EncDecModel::open(refDir("marian-separate"));  // 96 source, 80 target
    auto msg = [&](const std::vector<int>& s, const std::vector<int>& t) -> std::string {
      try {
        m->forward(s, t);
      } catch (const InputError& e) {
        return e.what();
      }
      return "(no error)";
    };
    QVERIFY(msg({1, 2}, {79, 85}).find("target token id 85 is outside the vocabulary (80 tokens)") !=
            std::string::npos);
    QVERIFY(msg({1, 96}, {79}).find("source token id 96") != std::string::npos);
    QVERIFY(msg({}, {79}).find("source text is empty") != std::string::npos);
    QVERIFY(msg(std::vector<int>(513, 3), {79}).find("at most 512") != std::string::npos);
    // T5 has no length limit: 30,000 tokens would keep 2·2·2·30,000² floats of maps (29 GB) — refused with a message.
    const std::shared_ptr<EncDecModel> t5 = EncDecModel::open(refDir("t5-v1_0"));
    try {
      t5->forward(std::vector<int>(30000, 3), {0});
      QFAIL("a 30,000-token source was accepted");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("30000") != std::string::npos ||
                   std::string(e.what()).find("30,000") != std::string::npos,
               e.what());
    }
    auto s = m->startDecoding({1, 2, 3});
    QVERIFY_THROWS_EXCEPTION(InputError, s->step(80));
  }

  /// Bad folders: an unsupported encoder–decoder named, missing weights listed, wrong shapes named.
  void badFolders() {
    QTemporaryDir tmp;
    const QString root = tmp.path();
    auto dir = [&](const char* n) {
      QDir(root).mkdir(n);
      return root + "/" + n;
    };
    const QString pegasus = dir("pegasus");
    copyWithConfig("bart", pegasus, [](nlohmann::json& c) { c["model_type"] = "pegasus"; });
    QCOMPARE(errorOf(pegasus.toStdString()),
             pegasus.toStdString() +
                 "/config.json: the encoder–decoder model_type \"pegasus\" is not supported (supported "
                 "encoder–decoders: marian, bart, t5)");
    const QString gpt2 = dir("gpt2");
    copyWithConfig("bart", gpt2, [](nlohmann::json& c) { c["model_type"] = "gpt2"; });
    QVERIFY(errorOf(gpt2.toStdString()).find("\"gpt2\" is not an encoder–decoder") != std::string::npos);
    const QString preLn = dir("preln");
    copyWithConfig("bart", preLn, [](nlohmann::json& c) { c["normalize_before"] = true; });
    QVERIFY(errorOf(preLn.toStdString()).find("normalize_before = true is not supported") != std::string::npos);
    const QString noWeights = dir("noweights");
    copyWithConfig("marian-tied", noWeights, [](nlohmann::json&) {});
    QFile::remove(noWeights + "/model.safetensors");
    QVERIFY(errorOf(noWeights.toStdString()).find("model.safetensors") != std::string::npos);
    const QString missing = dir("missing");
    copyWithConfig("marian-tied", missing, [](nlohmann::json&) {});
    renameTensor(missing.toStdString(), "model.decoder.layers.1.encoder_attn.k_proj.weight", "unused.k_proj.weight");
    QCOMPARE(errorOf(missing.toStdString()),
             missing.toStdString() +
                 "/model.safetensors: 1 tensor is missing: \"model.decoder.layers.1.encoder_attn.k_proj.weight\"");
    const QString noHead = dir("nohead");
    copyWithConfig("marian-separate", noHead, [](nlohmann::json&) {});
    renameTensor(noHead.toStdString(), "lm_head.weight", "lm_head.weight.old");
    QVERIFY(errorOf(noHead.toStdString()).find("\"lm_head.weight\" is missing and tie_word_embeddings is false") !=
            std::string::npos);
    const QString shape = dir("shape");
    copyWithConfig("marian-tied", shape, [](nlohmann::json& c) { c["encoder_ffn_dim"] = 48; });
    QCOMPARE(errorOf(shape.toStdString()),
             shape.toStdString() +
                 "/model.safetensors: tensor \"model.encoder.layers.0.fc1.weight\" has shape [32, 16], but "
                 "config.json implies [48, 16]");
    const QString gated = dir("gated");  // v1.1 weights read as v1.0: wi missing, named
    copyWithConfig("t5-v1_1", gated, [](nlohmann::json& c) { c["feed_forward_proj"] = "relu"; });
    QVERIFY(errorOf(gated.toStdString()).find("\"encoder.block.0.layer.1.DenseReluDense.wi.weight\"") !=
            std::string::npos);
    const QString ff = dir("ff");
    copyWithConfig("t5-v1_1", ff, [](nlohmann::json& c) { c["feed_forward_proj"] = "gated-silu"; });
    QVERIFY(errorOf(ff.toStdString()).find("feed_forward_proj \"gated-silu\" is not supported") != std::string::npos);
    // Buckets T5's formula cannot place (log(0/0), or a division by log(1)): refused, not a bucket outside the table.
    const QString fewBuckets = dir("fewbuckets");
    copyWithConfig("t5-v1_1", fewBuckets, [](nlohmann::json& c) { c["relative_attention_num_buckets"] = 3; });
    QVERIFY(errorOf(fewBuckets.toStdString()).find("relative_attention_num_buckets") != std::string::npos);
    const QString nearDistance = dir("neardistance");
    copyWithConfig("t5-v1_1", nearDistance, [](nlohmann::json& c) {
      c["relative_attention_num_buckets"] = 8;
      c["relative_attention_max_distance"] = 4;
    });
    QVERIFY2(errorOf(nearDistance.toStdString())
                     .find("relative_attention_max_distance (4) must exceed half of "
                           "relative_attention_num_buckets (8)") != std::string::npos,
             errorOf(nearDistance.toStdString()).c_str());
    const QString mt5 = dir("mt5");
    copyWithConfig("t5-v1_1", mt5, [](nlohmann::json& c) { c["model_type"] = "mt5"; });
    QVERIFY(errorOf(mt5.toStdString()).find("model_type \"mt5\" is not supported") != std::string::npos);
    // The program's checkpoint opener (readHfConfig) names encoder–decoders instead of listing decoder families.
    try {
      readHfConfig(refDir("marian-tied") + "/config.json");
      QFAIL("readHfConfig accepted a marian config");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("model_type \"marian\" is an encoder–decoder") != std::string::npos,
               e.what());
    }
    const QString separate = dir("separate");  // separate vocabularies claimed, one shared table stored
    copyWithConfig("marian-tied", separate, [](nlohmann::json& c) { c["share_encoder_decoder_embeddings"] = false; });
    QVERIFY(errorOf(separate.toStdString()).find("this is not a marian checkpoint") != std::string::npos);
  }

  void cleanupTestCase() { qInfo("worst relative error over every encoder-decoder checkpoint: %.2e", worstError); }
};

ATTNLAB_TEST_GUILESS_MAIN(TestEncDecModels)
#include "test_encdec_models.moc"
