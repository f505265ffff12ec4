// `attnlab dump | generate | predict --model DIR --source … [--target …]` (issue 33) on the tiny encoder–decoder
// checkpoints of tests/reference/encdec/: every encoder, decoder and cross-attention matrix against the float64
// reference (reference.json of make_encdec_reference.py), the greedy translation token for token, the text form
// through marian-spm's SentencePiece files (python sentencepiece's ids), and a clear message with exit 1 for bad input.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>

#include "core/run/encdec_run.h"
#include "tests/app/cli_test_util.h"
#include "tests/bart_bpe_folder.h"
#include "tests/harness/test_registry.h"

namespace {

const QStringList kCheckpoints{"marian-tied", "marian-separate", "marian-spm", "bart", "t5-v1_0", "t5-v1_1"};

QString refDir(const QString& name) { return QString(ATTNLAB_TEST_DATA) + "/reference/encdec/" + name; }

QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

QString idList(const QJsonArray& ids, int from = 0) {
  QStringList out;
  for (int i = from; i < ids.size(); ++i) out << QString::number(ids[i].toInt());
  return out.join(",");
}

/// The largest |got − want| / max(1, |want|) over two matrices of equal shape; +inf when the shapes differ.
double worst(const QJsonArray& got, const QJsonArray& want) {
  if (got.size() != want.size() || got.isEmpty()) return INFINITY;
  double w = 0;
  for (int i = 0; i < want.size(); ++i) {
    const QJsonArray g = got[i].toArray(), r = want[i].toArray();
    if (g.size() != r.size()) return INFINITY;
    for (int j = 0; j < r.size(); ++j)
      w = std::max(w, std::abs(g[j].toDouble() - r[j].toDouble()) / std::max(1.0, std::abs(r[j].toDouble())));
  }
  return w;
}

QJsonObject dump(const QStringList& args) {
  const AppRun r = runApp(QStringList{"dump"} + args);
  if (r.code != 0) qWarning() << r.err;
  return r.code == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
}

/// A folder with marian-spm's weights and the Marian tokenizer files of tests/reference/tokenizers/spm/marian.
QString marianFolder(const QTemporaryDir& tmp, const QString& name = "marian") {
  const QString dir = tmp.path() + "/" + name;
  QDir(tmp.path()).mkdir(name);
  for (const char* f : {"config.json", "model.safetensors"}) QFile::copy(refDir("marian-spm") + "/" + f, dir + "/" + f);
  const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/marian";
  for (const QString& f : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + f, dir + "/" + f);
  return dir;
}

using attnlab::test::bartBpeFolder;

}  // namespace

class TestCliEncDec : public QObject {
  Q_OBJECT

  /// Exit 1 with a message holding every one of `parts`.
  static void refused(const QStringList& args, const QStringList& parts) {
    const AppRun r = runApp(args);
    QVERIFY2(r.code == 1, qPrintable(args.join(" ") + " → " + QString::number(r.code) + " " + r.err));
    for (const QString& p : parts) QVERIFY2(QString::fromUtf8(r.err).contains(p), qPrintable(p + " not in: " + r.err));
    QVERIFY2(QString::fromUtf8(r.err).startsWith("attnlab "), r.err.constData());
  }

 private slots:
  /// Every matrix of the dump equals the reference's (≤ 1e-4 relative to max(1, |x|)): the encoder's and the
  /// decoder's self-attention (q, k, v, scores, attention per head; attention_out, mlp_out, residual_out) and the
  /// cross-attention (q, k, v, scores, attention; cross_attention_out). The reference's target ids are the decoder's
  /// input: decoder_start_token_id, then the labels the CLI takes as --target-ids.
  void dumpMatchesReference() {
    for (const QString& name : kCheckpoints) {
      const QJsonObject ref = readJson(refDir(name) + "/reference.json");
      const QJsonObject cfg = readJson(refDir(name) + "/config.json");
      const QJsonArray target = ref["target_ids"].toArray();
      QCOMPARE(target[0].toInt(), cfg["decoder_start_token_id"].toInt(0));
      const QJsonObject j = dump({"--model", refDir(name), "--source-ids", idList(ref["source_ids"].toArray()),
                                  "--target-ids", idList(target, 1)});
      QCOMPARE(j["schema"].toString(), QString("attnlab.trace/1"));
      const QJsonObject config = j["config"].toObject();
      QCOMPARE(config["kind"].toString(), ref["family"].toString());
      QCOMPARE(j["source_ids"].toArray(), ref["source_ids"].toArray());
      QCOMPARE(j["token_ids"].toArray(), target);
      QCOMPARE(j["target_from"].toString(), QString("ids"));
      double w = 0;
      int compared = 0;
      const auto check = [&](const QJsonValue& got, const QJsonValue& want, const QString& what) {
        const double e = worst(got.toArray(), want.toArray());
        QVERIFY2(e <= 1e-4, qPrintable(name + " " + what + ": " + QString::number(e)));
        w = std::max(w, e);
        ++compared;
      };
      for (const char* stack : {"encoder", "decoder"}) {
        const bool dec = QString(stack) == "decoder";
        const QJsonArray got = j[dec ? "layers" : "encoder_layers"].toArray();
        const QJsonArray want = ref[stack].toObject()["layers"].toArray();
        QCOMPARE(got.size(), want.size());
        QCOMPARE(config[dec ? "decoder_layers" : "encoder_layers"].toInt(), want.size());
        check(j[dec ? "embeddings" : "source_embeddings"], ref[stack].toObject()["embeddings"], "embeddings");
        for (int l = 0; l < want.size(); ++l) {
          const QJsonObject g = got[l].toObject(), r = want[l].toObject();
          const QString at = QString(stack) + " layer " + QString::number(l);
          for (const char* key : {"attention_out", "mlp_out", "residual_out"}) check(g[key], r[key], at + " " + key);
          const QJsonArray heads = g["heads"].toArray();
          QCOMPARE(heads.size(), r["q"].toArray().size());
          for (int h = 0; h < heads.size(); ++h)
            for (const char* key : {"q", "k", "v", "scores", "attention"})
              check(heads[h].toObject()[key], r[key].toArray()[h], at + " head " + QString::number(h) + " " + key);
          if (!dec) {
            QVERIFY(!g.contains("cross_heads"));
            continue;
          }
          const QJsonObject rc = r["cross"].toObject();
          check(g["cross_attention_out"], rc["attention_out"], at + " cross attention_out");
          const QJsonArray cross = g["cross_heads"].toArray();
          QCOMPARE(cross.size(), rc["q"].toArray().size());
          for (int h = 0; h < cross.size(); ++h) {
            const QJsonObject ch = cross[h].toObject();
            for (const char* key : {"q", "k", "v", "scores", "attention"})
              check(ch[key], rc[key].toArray()[h], at + " cross head " + QString::number(h) + " " + key);
            // n_tgt × n_src, and the head's output is its column block of cross_concat.
            QCOMPARE(ch["attention"].toArray().size(), target.size());
            QCOMPARE(ch["attention"].toArray()[0].toArray().size(), ref["source_ids"].toArray().size());
            const QJsonArray out = ch["output"].toArray(), concat = g["cross_concat"].toArray();
            const int dh = ch["q"].toArray()[0].toArray().size();
            QCOMPARE(out.size(), target.size());
            for (int i = 0; i < out.size(); ++i)
              for (int c = 0; c < dh; ++c)
                QCOMPARE(out[i].toArray()[c].toDouble(), concat[i].toArray()[h * dh + c].toDouble());
          }
        }
      }
      qInfo("%s: %d matrices, worst relative error %.2g", qPrintable(name), compared, w);
    }
  }

  /// Without --target the decoder's input is the greedy translation (the reference's plain argmax loop, its length
  /// limit as --max-new): the start token, then the generated ids. generate gives the same ids step by step and
  /// predict the first of them, with the reference's logits.
  void greedyEqualsReference() {
    for (const QString& name : kCheckpoints) {
      const QJsonObject ref = readJson(refDir(name) + "/reference.json");
      const QJsonObject greedy = ref["greedy"].toObject();
      const QString source = idList(ref["source_ids"].toArray());
      const QString maxNew = QString::number(greedy["max_new_tokens"].toInt());
      const QJsonObject j = dump({"--model", refDir(name), "--source-ids", source, "--max-new", maxNew, "--only", "0.0",
                                  "--no-qkv", "--no-streams"});
      QJsonArray want{ref["target_ids"].toArray()[0]};
      for (const auto& id : greedy["tokens"].toArray()) want.append(id);
      if (want.last() == j["config"]["eos_token_id"])
        want.removeLast();  // a final </s> is the last label, never a decoder input
      QCOMPARE(j["token_ids"].toArray(), want);
      QCOMPARE(j["target_from"].toString(), QString("greedy"));
      // generate's --steps is a count of steps, not a length limit (transformers' max_length): the reference's
      // forced eos at its 10-token budget (Marian's and BART's forced_eos_token_id) is not one of the first 9 steps.
      const int steps = std::min<int>(greedy["tokens"].toArray().size(), greedy["max_new_tokens"].toInt() - 1);
      const AppRun g =
          runApp({"generate", "--model", refDir(name), "--source-ids", source, "--steps", QString::number(steps)});
      QVERIFY2(g.code == 0, g.err.constData());
      const QList<QByteArray> lines = g.out.trimmed().split('\n');
      QCOMPARE(lines.size(), steps);
      for (int i = 0; i < lines.size(); ++i) {
        const QJsonObject step = QJsonDocument::fromJson(lines[i]).object();
        QCOMPARE(step["step"].toInt(), i + 1);
        QCOMPARE(step["id"], greedy["tokens"].toArray()[i]);
      }
      // predict after the reference's whole target: its last logits row, most probable first.
      const QJsonArray target = ref["target_ids"].toArray();
      const AppRun p = runApp({"predict", "--model", refDir(name), "--source-ids", source, "--target-ids",
                               idList(target, 1), "--top", "3"});
      QVERIFY2(p.code == 0, p.err.constData());
      const QJsonObject pj = QJsonDocument::fromJson(p.out).object();
      QCOMPARE(pj["schema"].toString(), QString("attnlab.predict/1"));
      QCOMPARE(pj["position"].toInt(), target.size() - 1);
      const QJsonArray last = ref["logits"].toArray().last().toArray();
      int best = 0;
      for (int i = 1; i < last.size(); ++i)
        if (last[i].toDouble() > last[best].toDouble()) best = i;
      const QJsonObject top = pj["top"].toArray()[0].toObject();
      QCOMPARE(top["id"].toInt(), best);
      QVERIFY(std::abs(top["logit"].toDouble() - last[best].toDouble()) <=
              1e-4 * std::max(1.0, std::abs(last[best].toDouble())));
    }
  }

  /// The text form: the source through source.spm (python sentencepiece's ids), the target through target.spm
  /// (its pieces mapped by vocab.json), shown as vocabulary pieces; --only, --no-qkv and --out as for one text.
  void textsThroughTheTokenizers() {
    QTemporaryDir tmp;
    const QString dir = marianFolder(tmp);
    const QJsonObject tok = readJson(QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/reference.json");
    const QJsonObject ref = readJson(refDir("marian-spm") + "/reference.json");
    const QJsonObject vocab = readJson(dir + "/vocab.json");
    const QString text = tok["texts"].toArray()[0].toString();
    QJsonArray labels{ref["target_ids"].toArray()[0]};  // the start token, then target.spm's pieces (no </s>)
    for (const auto& piece : tok["spm"].toObject()["marian_target"].toArray()[0].toObject()["pieces"].toArray())
      labels.append(vocab.contains(piece.toString()) ? vocab[piece.toString()] : vocab["<unk>"]);
    const QString out = tmp.filePath("two.json");
    const AppRun r =
        runApp({"dump", "--model", dir, "--source", text, "--target", text, "--only", "1.1", "--no-qkv", "--out", out});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY(r.out.isEmpty());
    const QJsonObject j = readJson(out);
    QCOMPARE(j["source_ids"].toArray(), ref["source_ids"].toArray());
    QCOMPARE(j["source_ids"].toArray(), tok["marian"].toArray()[0].toObject()["ids"].toArray());
    QCOMPARE(j["token_ids"].toArray(), labels);
    QCOMPARE(j["target_from"].toString(), QString("text"));
    QCOMPARE(j["source_tokens"].toArray().last().toString(), QString("</s>"));
    QCOMPARE(j["tokens"].toArray()[0].toString(), QString("<pad>"));  // Marian starts from its pad token
    QCOMPARE(j["tokens"].toArray().size(), labels.size());
    for (const char* stack : {"encoder_layers", "layers"}) {
      const QJsonArray layers = j[stack].toArray();
      for (int l = 0; l < layers.size(); ++l) {
        const QJsonObject layer = layers[l].toObject();
        QVERIFY(layer.contains("residual_out"));
        for (const char* kind : {"heads", "cross_heads"}) {
          const QJsonArray heads = layer[kind].toArray();
          for (int h = 0; h < heads.size(); ++h) {
            const QJsonObject head = heads[h].toObject();
            QVERIFY(!head.contains("q") && !head.contains("k") && !head.contains("v"));
            QVERIFY(head.contains("output"));
            QCOMPARE(head.contains("attention"), l == 1 && h == 1);
          }
        }
      }
    }
    // The same translation as the ids form, shown as target pieces.
    const QJsonObject g = dump({"--model", dir, "--source", text, "--max-new", "10", "--no-qkv", "--no-streams"});
    QJsonArray greedy{ref["target_ids"].toArray()[0]};
    for (const auto& id : ref["greedy"].toObject()["tokens"].toArray()) greedy.append(id);
    if (greedy.last() == g["config"]["eos_token_id"]) greedy.removeLast();  // the last label, never an input
    QCOMPARE(g["token_ids"].toArray(), greedy);
    for (int i = 1; i < greedy.size(); ++i)  // vocab.json's piece of each id
      QCOMPARE(vocab[g["tokens"].toArray()[i].toString()].toInt(), greedy[i].toInt());
    // The bidirectional encoder maps: n_src × n_src, nothing masked above the diagonal.
    const QJsonArray first =
        j["encoder_layers"].toArray()[1].toObject()["heads"].toArray()[1].toObject()["attention"].toArray();
    QCOMPARE(first.size(), j["source_ids"].toArray().size());
    QVERIFY(first[0].toArray().last().toDouble() > 0);
  }

  /// --npy DIR: the same document with each matrix a float32 .npy file; the cross map's numbers equal the JSON's.
  void npyFolder() {
    QTemporaryDir tmp;
    const QJsonObject ref = readJson(refDir("marian-separate") + "/reference.json");
    const QStringList ids{"--model",      refDir("marian-separate"),
                          "--source-ids", idList(ref["source_ids"].toArray()),
                          "--target-ids", idList(ref["target_ids"].toArray(), 1),
                          "--no-qkv"};
    const QString folder = tmp.filePath("npy");
    const AppRun r = runApp(QStringList{"dump", "--npy", folder} + ids);
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject index = readJson(folder + "/index.json"), whole = dump(ids);
    for (const char* key : {"schema", "config", "source_ids", "token_ids", "tokens", "source_tokens"})
      QCOMPARE(index[key], whole[key]);
    const QJsonObject file =
        index["layers"].toArray()[1].toObject()["cross_heads"].toArray()[3].toObject()["attention"].toObject();
    QCOMPARE(file["npy"].toString(), QString("L1_X3_attention.npy"));
    const int rows = ref["target_ids"].toArray().size(), cols = ref["source_ids"].toArray().size();
    QCOMPARE(file["shape"].toArray(), (QJsonArray{rows, cols}));
    QFile f(folder + "/" + file["npy"].toString());
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray npy = f.readAll();
    QVERIFY(npy.startsWith("\x93NUMPY") && npy.contains("'descr': '<f4'"));
    const int header = 10 + (static_cast<unsigned char>(npy[8]) | static_cast<unsigned char>(npy[9]) << 8);
    QCOMPARE(npy.size(), header + 4 * rows * cols);
    const QJsonArray json =
        whole["layers"].toArray()[1].toObject()["cross_heads"].toArray()[3].toObject()["attention"].toArray();
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        float v = 0;
        std::memcpy(&v, npy.constData() + header + 4 * (i * cols + j), 4);
        QCOMPARE(v, static_cast<float>(json[i].toArray()[j].toDouble()));
      }
    QVERIFY(QFile::exists(folder + "/E0_H0_attention.npy") && QFile::exists(folder + "/L0_cross_residual_out.npy") &&
            QFile::exists(folder + "/source_embeddings.npy"));
    QVERIFY(!QFile::exists(folder + "/L0_X0_q.npy"));  // --no-qkv
  }

  /// builtin:reverse opens by its name in the two-text form as in the window: "d c b a" reversed starts with "a";
  /// dump shows the source (with its </s>) and the decoder's input (start token, then the target's pieces).
  void builtinReverseByName() {
    const AppRun p = runApp({"predict", "--model", "builtin:reverse", "--source", "d c b a", "--top", "3"});
    QVERIFY2(p.code == 0, p.err.constData());
    const QJsonObject pj = QJsonDocument::fromJson(p.out).object();
    QCOMPARE(pj["top"].toArray()[0].toObject()["token"].toString(), QString("a"));
    QCOMPARE(pj["source_tokens"].toArray(), (QJsonArray{"d", "c", "b", "a", "</s>"}));
    QCOMPARE(pj["token_ids"].toArray().size(), 1);  // the decoder's start token alone
    const QJsonObject d = dump({"--model", "builtin:reverse", "--source", "d c b a", "--target", "a b", "--no-qkv"});
    QCOMPARE(d["config"].toObject()["model"].toString(), QString("builtin:reverse"));
    QCOMPARE(d["config"].toObject()["kind"].toString(), QString("bart"));
    QCOMPARE(d["source_tokens"].toArray(), (QJsonArray{"d", "c", "b", "a", "</s>"}));
    const QJsonArray tokens = d["tokens"].toArray(), ids = d["token_ids"].toArray();
    QCOMPARE(ids[0].toInt(), d["config"].toObject()["decoder_start_token_id"].toInt());
    QCOMPARE(tokens.size(), 3);
    QCOMPARE(tokens[1].toString(), QString("a"));
    QCOMPARE(tokens[2].toString(), QString("b"));
    QCOMPARE(d["layers"].toArray()[0].toObject()["cross_heads"].toArray()[0].toObject()["attention"].toArray().size(),
             3);
    // Greedy without --target: the reversal, "a b c d" behind the start token.
    const QJsonObject g = dump({"--model", "builtin:reverse", "--source", "d c b a", "--no-qkv", "--no-streams"});
    QCOMPARE(g["target_from"].toString(), QString("greedy"));
    const QJsonArray gt = g["tokens"].toArray();
    QCOMPARE(gt.size(), 5);
    QCOMPARE((QStringList{gt[1].toString(), gt[2].toString(), gt[3].toString(), gt[4].toString()}).join(" "),
             QString("a b c d"));
  }

  /// One decoder input for a typed target, in the window and on the command line: BART's labels carry <s> … </s>
  /// (RobertaProcessing), so the decoder reads [decoder_start </s>=2, <s>=0, cat, Ġs, at] (the final </s> dropped),
  /// as Hugging Face shifts the labels right. The window's run (runEncDecPipeline), dump's and predict's token_ids
  /// are that list; the source keeps both its specials.
  void targetWithTheTokenizersSpecials() {
    QTemporaryDir tmp;
    const QString dir = bartBpeFolder(tmp);
    const QJsonArray want{2, 0, 32, 33, 31};
    const QJsonObject d = dump({"--model", dir, "--source", "cat sat", "--target", "cat sat", "--no-qkv"});
    QCOMPARE(d["source_ids"].toArray(), (QJsonArray{0, 32, 33, 31, 2}));
    QCOMPARE(d["token_ids"].toArray(), want);
    QCOMPARE(d["tokens"].toArray()[1].toString(), QString("<s>"));
    const AppRun p = runApp({"predict", "--model", dir, "--source", "cat sat", "--target", "cat sat"});
    QVERIFY2(p.code == 0, p.err.constData());
    QCOMPARE(QJsonDocument::fromJson(p.out).object()["token_ids"].toArray(), want);
    attnlab::Params params;
    params.sentence = "cat sat";
    params.target = "cat sat";
    const attnlab::PipelineResult r = attnlab::runEncDecPipeline(params, attnlab::openEncDecModel(dir.toStdString()));
    QJsonArray window;
    for (int id : r.text.ids) window.append(id);
    QCOMPARE(window, want);
    QCOMPARE(r.encdec->target.ids, r.text.ids);
    QCOMPARE(r.text.tokens.size(), r.text.ids.size());
    QCOMPARE(r.text.tokens[1].text, std::string("<s>"));
    QCOMPARE(r.text.tokens[2].byteBegin, 0);  // "cat": its span in the typed target
    QCOMPARE(r.text.tokens[2].byteEnd, 3);
    // The window's cross map has the dump's shape: n_tgt × n_src = 5 × 5, and the same numbers.
    const QJsonArray cross =
        d["layers"].toArray()[1].toObject()["cross_heads"].toArray()[1].toObject()["attention"].toArray();
    QCOMPARE(cross.size(), 5);
    const attnlab::Mat& a = r.encdec->trace->cross.at(1).heads.at(1).attention;
    QCOMPARE(int(a.rows()), 5);
    QCOMPARE(int(a.cols()), 5);
    double diff = 0;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) diff = std::max(diff, std::abs(cross[i].toArray()[j].toDouble() - a(i, j)));
    QVERIFY2(diff <= 1e-6, qPrintable(QString::number(diff)));
    // A generated <s> (BART's forced first token) is not written into the target text: read again, the text gives
    // it once, as the decoder had it.
    const auto model = attnlab::openEncDecModel(dir.toStdString());
    QCOMPARE(model->appendPiece("", 0), std::string());
    QCOMPARE(model->appendPiece("cat", 0), std::string("cat"));
    QCOMPARE(model->tokenizeTarget(model->appendPiece(model->appendPiece("", 0), 32)).ids,
             (std::vector<int>{2, 0, 32}));
    // No target: the tokenizer's template alone, shifted — BART's [<s>, </s>] → [start, <s>], where its forced <s>
    // leads (by hand), in the window's run and in `predict` without --target.
    params.target = "";
    QCOMPARE(attnlab::runEncDecPipeline(params, attnlab::openEncDecModel(dir.toStdString())).text.ids,
             (std::vector<int>{2, 0}));
  }

  /// A byte-level BPE target (BART's) decodes as its tokenizer's ByteLevel decoder: each piece's stand-ins become
  /// their bytes ("Ġ" a space, not "Ġs at"), a character split over pieces comes out whole, the specials are left out,
  /// and the text tokenizes back to the same ids.
  void byteLevelTargetDecodes() {
    QTemporaryDir tmp;
    const auto model = attnlab::openEncDecModel(bartBpeFolder(tmp).toStdString());
    const attnlab::TextTokenizer& tok = model->targetTokenizer();
    // " cat sat" → Ġ cat Ġs at (no "Ġc" merge): the leading space of an empty target is dropped.
    const std::vector<int> spaced = tok.encode(" cat sat", false).ids;
    QCOMPARE(spaced, (std::vector<int>{30, 32, 33, 31}));
    QCOMPARE(model->decodeTarget(spaced), std::string("cat sat"));
    // With BART's specials and a start token around it: <s>=0 and </s>=2 (the start) are not text.
    QCOMPARE(model->decodeTarget({2, 0, 32, 33, 31, 2}), std::string("cat sat"));
    // One piece at a time, as Next token and Generate N append: "cat" + "Ġs" + "at".
    QCOMPARE(model->appendPiece("cat", 33), std::string("cat s"));
    QCOMPARE(model->appendPiece(model->appendPiece("cat", 33), 31), std::string("cat sat"));
    QCOMPARE(model->appendPiece("", 33), std::string("s"));
    // é is C3 A9, two pieces; 😀 is F0 9F 98 80, four.
    const std::vector<int> e = tok.encode("caté", false).ids, smile = tok.encode("at😀", false).ids;
    QCOMPARE(e, (std::vector<int>{32, 34, 35}));
    QCOMPARE(smile, (std::vector<int>{31, 36, 37, 38, 39}));
    QCOMPARE(model->decodeTarget(e), std::string("caté"));
    QCOMPARE(model->decodeTarget(smile), std::string("at😀"));
    QCOMPARE(model->appendPiece(model->appendPiece("cat", 34), 35), std::string("caté"));
    // A character cut off at the end (the generation stopped between its bytes) is U+FFFD, as Hugging Face's lossy
    // decode gives, so the text stays valid UTF-8.
    QCOMPARE(model->decodeTarget({32, 34}), std::string("cat\xEF\xBF\xBD"));
    // Two of 😀's four bytes: still one U+FFFD (Python's bytes.decode(errors="replace") gives "cat\ufffd").
    QCOMPARE(model->decodeTarget({32, 36, 37}), std::string("cat\xEF\xBF\xBD"));
    // Round trip: the decoded text tokenizes to the same ids, and as a target to the decoder input of those labels.
    for (const std::vector<int>& ids : {std::vector<int>{32, 33, 31}, e, smile, std::vector<int>{31, 30, 32}})
      QCOMPARE(tok.encode(model->decodeTarget(ids), false).ids, ids);
    // The views draw both stacks' pieces as byte-level ("Ġs" as "·s"), not as SentencePiece's.
    QCOMPARE(model->stackModel(true)->info().pieceStyle, std::string("byte-level"));
    QCOMPARE(model->stackModel(false)->info().pieceStyle, std::string("byte-level"));
    QCOMPARE(attnlab::openEncDecModel(marianFolder(tmp).toStdString())->stackModel(true)->info().pieceStyle,
             std::string("metaspace"));
    QCOMPARE(model->tokenizeTarget(model->decodeTarget({2, 0, 32, 33, 31, 2})).ids,
             (std::vector<int>{2, 0, 32, 33, 31}));
  }

  /// A character generated over byte pieces (the chain model of tests/bart_bpe_folder.h: "cat", then 😀 as ð Ł ĺ Ģ,
  /// then "Ġs" and </s>): `generate --source` writes one line per piece with its vocabulary piece as "token" (never a
  /// cut-off character), and `dump` without --target the greedy decoder input with the pieces as "tokens"; both are
  /// valid JSON at every step.
  void bytePiecesInJson() {
    QTemporaryDir tmp;
    const QString dir = bartBpeFolder(tmp);
    QVERIFY(
        attnlab::test::writeChainWeights(dir, {{0, 32}, {32, 36}, {36, 37}, {37, 38}, {38, 39}, {39, 33}, {33, 2}}));
    const AppRun g = runApp({"generate", "--model", dir, "--source", "cat", "--steps", "10"});
    QVERIFY2(g.code == 0, g.err.constData());
    const QList<QByteArray> lines = g.out.trimmed().split('\n');
    const QStringList pieces{"cat", "ð", "Ł", "ĺ", "Ģ", "Ġs", "</s>"};
    const QList<int> ids{32, 36, 37, 38, 39, 33, 2};
    QCOMPARE(lines.size(), pieces.size());
    for (int i = 0; i < lines.size(); ++i) {
      QJsonParseError e;
      const QJsonObject line = QJsonDocument::fromJson(lines[i], &e).object();
      QVERIFY2(e.error == QJsonParseError::NoError, lines[i].constData());
      QCOMPARE(line["id"].toInt(), ids[i]);
      QCOMPARE(line["token"].toString(), pieces[i]);
    }
    const QJsonObject d = dump({"--model", dir, "--source", "cat", "--no-qkv", "--no-streams"});
    // start, BART's forced <s>, then the pieces (</s> last, never an input)
    QCOMPARE(idList(d["token_ids"].toArray()), QString("2,0,32,36,37,38,39,33"));
    QStringList tokens;
    for (const QJsonValue& t : d["tokens"].toArray()) tokens << t.toString();
    QCOMPARE(tokens, (QStringList{"</s>", "<s>", "cat", "ð", "Ł", "ĺ", "Ģ", "Ġs"}));
    QCOMPARE(d["target_from"].toString(), QString("greedy"));
  }

  /// Bad input: a clear message and exit 1, never a crash.
  void badInputs() {
    QTemporaryDir tmp;
    const QString dir = marianFolder(tmp);
    const QString bart = refDir("bart");  // 64 positions, 96 tokens
    refused({"dump", "--model", dir, "--source", "   "}, {"--source is empty"});
    refused({"dump", "--model", dir, "--source", "hello", "--target", ""}, {"--target is empty"});
    refused({"predict", "--model", dir, "--source", ""}, {"--source is empty"});
    refused({"dump", "--model", bart, "--source-ids", ""}, {"--source-ids is empty"});
    refused({"dump", "--model", bart, "--source-ids", "1,x"}, {"--source-ids expects token ids"});
    refused({"dump", "--model", bart, "--source-ids", "1,500"}, {"500", "outside the vocabulary"});
    // Longer than the positions: both lengths named.
    QStringList many;
    for (int i = 0; i < 65; ++i) many << "5";
    refused({"dump", "--model", bart, "--source-ids", many.join(",")}, {"source text has 65 tokens", "at most 64"});
    refused({"dump", "--model", bart, "--source-ids", "5,6", "--target-ids", many.join(",")},
            {"target text has 66 tokens", "at most 64"});
    refused({"predict", "--model", bart, "--source-ids", many.join(",")}, {"65", "64"});
    refused({"generate", "--model", bart, "--source-ids", "5,6", "--steps", "65"}, {"65", "64"});
    QString longText;
    for (int i = 0; i < 600; ++i) longText += "a ";
    refused({"dump", "--model", dir, "--source", longText}, {"source text has", "at most 512"});
    // Not UTF-8 (from a file: an argument cannot carry the bytes).
    const QString bad = tmp.filePath("bad.txt");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("caf\xc3 ok \xff\xfe");
    f.close();
    refused({"dump", "--model", dir, "--source-file", bad}, {"not valid UTF-8", "byte offset 3"});
    refused({"dump", "--model", dir, "--source", "a", "--source-file", bad}, {"give one of --source"});
    // A folder without one of the SentencePiece files, and one whose vocabularies disagree.
    QTemporaryDir tmp2;
    const QString noTarget = marianFolder(tmp2, "no-target");
    QVERIFY(QFile::remove(noTarget + "/target.spm"));
    refused({"dump", "--model", noTarget, "--source", "hello"}, {"target.spm"});
    const QString disagree = marianFolder(tmp2, "disagree");
    QJsonObject vocab = readJson(disagree + "/vocab.json");
    vocab.remove("▁the");
    QFile v(disagree + "/vocab.json");
    QVERIFY(v.open(QIODevice::WriteOnly | QIODevice::Truncate));
    v.write(QJsonDocument(vocab).toJson());
    v.close();
    refused({"dump", "--model", disagree, "--source", "hello"}, {"vocabularies disagree"});
    // A text form on a folder without tokenizer files; a one-text model; mixed forms.
    refused({"dump", "--model", bart, "--source", "hello"}, {"tokenizer"});
    refused({"dump", "--model", QString(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny", "--source", "hello"},
            {"config.json"});
    refused({"dump", "--source", "hello"}, {"--model DIR"});
    // The one-text form on an encoder–decoder points to the two-text form.
    refused({"dump", "--model", bart, "--sentence", "hello"}, {"is an encoder–decoder", "--source TEXT"});
    refused({"dump", "--model", bart, "--source-ids", "5", "--sentence", "x"}, {"--sentence is one text's"});
    refused({"dump", "--model", bart, "--source-ids", "5", "--npy", tmp.path(), "--out", tmp.filePath("x.json")},
            {"give --out FILE or --npy DIR, not both"});
    refused({"dump", "--model", bart, "--source-ids", "5", "--only", "7.0"}, {"--only: head 7.0 does not exist"});
    refused({"dump", "--model", bart, "--source-ids", "5", "--target-ids", "6", "--max-new", "3"}, {"--max-new"});
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliEncDec)
#include "test_cli_encdec.moc"
