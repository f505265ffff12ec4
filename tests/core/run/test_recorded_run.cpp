// A run recorded in Python and shown by the program (issue 34): the run file (core/model/run_file.h) reads back bit for
// bit, a bad file is refused with a message naming what is wrong, and RecordedRunModel (core/run/recorded_run.h) gives
// the recorded trace for its model's recorded ids only — an edited text, an ablation or another model run live, and
// never with the recorded run's layers lent to them.
#include <QtTest>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/run/model_factory.h"
#include "core/run/pipeline.h"
#include "core/run/recorded_run.h"
#include "core/session/params_json.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string dataDir(const std::string& rel) { return std::string(ATTNLAB_TEST_DATA) + "/" + rel; }
const std::string kText = "The cat sat on the mat and the cat";

bool same(const Mat& a, const Mat& b) {  // bit for bit: shapes and every float (== is exact; no NaN in a trace)
  return a.rows() == b.rows() && a.cols() == b.cols() && a == b;
}

/// What differs between two traces, "" when they are equal bit for bit.
std::string difference(const Trace& a, const Trace& b) {
  if (a.tokens != b.tokens || a.tokenIds != b.tokenIds) return "tokens";
  if (a.causal != b.causal || a.kvHeads != b.kvHeads || a.layerCount() != b.layerCount()) return "shape";
  if (!same(a.embeddings, b.embeddings)) return "embeddings";
  for (int l = 0; l < a.layerCount(); ++l) {
    const LayerTrace &x = a.layers[l], &y = b.layers[l];
    const std::string at = "layer " + std::to_string(l) + " ";
    if (!same(x.residualOut, y.residualOut) || !same(x.attentionOut, y.attentionOut) || !same(x.mlpOut, y.mlpOut) ||
        !same(x.concat, y.concat))
      return at + "streams";
    if (x.heads.size() != y.heads.size()) return at + "heads";
    for (std::size_t h = 0; h < x.heads.size(); ++h) {
      const HeadTrace &p = x.heads[h], &q = y.heads[h];
      if (!same(p.q, q.q) || !same(p.k(), q.k()) || !same(p.v(), q.v()) || !same(p.scores, q.scores) ||
          !same(p.attention, q.attention))
        return at + "head " + std::to_string(h) + " q/k/v/maps";
      if (p.options.scale != q.options.scale || p.options.causal != q.options.causal ||
          p.options.window != q.options.window || p.options.softcap != q.options.softcap)
        return at + "options";
      const HeadSummary &s = p.summary, &t = q.summary;
      if (s.tokens != t.tokens || s.cellTokens != t.cellTokens || s.entropy != t.entropy ||
          s.sinkShare != t.sinkShare || s.previousToken != t.previousToken || s.meanDistance != t.meanDistance ||
          s.maxWeight != t.maxWeight || !same(s.thumbMean, t.thumbMean) || !same(s.thumbMax, t.thumbMax) ||
          !same(s.thumbSum, t.thumbSum) || s.bandSums != t.bandSums)
        return at + "summary";
    }
  }
  return {};
}

std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

RunFileModel modelOf(const Model& m, const std::string& dir) {
  return {m.info(), dir, nlohmann::json(), m.vocabularySize()};
}

/// The message readRunFile gives for `path`, "" when it reads.
std::string readError(const std::string& path) {
  try {
    readRunFile(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestRecordedRun : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    folder_ = std::make_unique<QTemporaryDir>();
    QVERIFY(folder_->isValid());
  }
  void cleanup() { clearRecordedRun(); }

  void roundTripsBitForBit() {
    const std::string gpt2 = dataDir("reference/models/gpt2_tiny"), llama = dataDir("reference/decoders/llama-gqa");
    struct Case {
      std::string dir;
      MapKeeping maps;
    };
    // Kept maps; a tiled pass (no maps: summaries and thumbnails); grouped-query attention (K, V shared by a group).
    for (const Case& c :
         {Case{gpt2, MapKeeping::Always}, Case{gpt2, MapKeeping::Never}, Case{llama, MapKeeping::Auto}}) {
      const auto model = loadCheckpoint(c.dir);
      Intervention iv;
      iv.maps = c.maps;
      iv.ablate = {{0, 1}};  // a changed run, as the hooks make them
      const Trace t = model->forward(model->tokenize(kText), {}, iv);
      if (c.maps == MapKeeping::Never)
        QVERIFY(!t.layers[0].heads[0].keepsMaps() && !t.layers[0].heads[0].summary.empty());
      if (c.dir == llama) QVERIFY(t.kvHeads > 0 && t.kvHeads < t.headCount());
      const std::string path = file("a.attnlab-run"), again = file("b.attnlab-run");
      writeRunFile(path, t, modelOf(*model, c.dir));
      const RunFile read = readRunFile(path);
      QVERIFY2(difference(t, read.trace).empty(), difference(t, read.trace).c_str());
      QCOMPARE(read.model.info.name, model->info().name);
      QCOMPARE(read.model.info.layers, model->info().layers);
      QCOMPARE(read.model.modelDir, c.dir);
      QCOMPARE(read.model.vocabularySize, model->vocabularySize());
      // The group's heads share one K and V again, as the forward pass made them.
      if (c.dir == llama) QVERIFY(read.trace.layers[0].heads[0].keys == read.trace.layers[0].heads[1].keys);
      writeRunFile(again, read.trace, read.model);
      QVERIFY(fileBytes(path) == fileBytes(again));
    }
  }

  void badFilesAreNamed() {
    const auto model = loadCheckpoint(dataDir("reference/models/gpt2_tiny"));
    const std::string good = file("good.attnlab-run");
    writeRunFile(good, model->forward(model->tokenize(kText)), modelOf(*model, "x"));
    const std::string bytes = fileBytes(good), bad = file("bad.attnlab-run");
    const auto expect = [&](const std::string& content, const QString& message) {
      writeBytes(bad, content);
      const QString got = QString::fromStdString(readError(bad));
      QVERIFY2(got.contains(message), qPrintable(got));
    };
    QVERIFY(QString::fromStdString(readError(file("missing"))).contains("cannot read the run file"));
    expect("{\"schema\": \"attnlab.session/1\"}", "is not a run file");
    std::string newer = bytes;
    newer[8] = 2;
    expect(newer, "has format version 2; this program reads version 1");
    // Cut in the data: both sizes named.
    expect(bytes.substr(0, bytes.size() - 100),
           QString("is truncated: %1 bytes of the %2 its header gives").arg(bytes.size() - 100).arg(bytes.size()));
    expect(bytes.substr(0, 40), "is truncated: 40 bytes, its header alone takes");
    std::string flipped = bytes;
    flipped[bytes.size() - 5] ^= 0x10;
    expect(flipped, "its data does not match the header's checksum");
    expect(bytes + "xx", "is corrupt: 2 bytes after its data");
    std::string header = bytes;
    header[20] = '#';  // the header's opening brace
    expect(header, "its header is not JSON");
    QVERIFY(readError(good).empty());
  }

  void noDamagedFileGetsPastTheReader() {
    // Every cut, and a flipped bit every few bytes of the prefix and header (the data has its checksum): each file
    // reads whole and consistent, or is refused with an InputError — never another exception, never a crash.
    const auto model = loadCheckpoint(dataDir("reference/models/gpt2_tiny"));
    const std::string good = file("good.attnlab-run"), bad = file("bad.attnlab-run");
    writeRunFile(good, model->forward(model->tokenize("a cat")), modelOf(*model, "x"));
    const std::string bytes = fileBytes(good);
    const std::size_t headerEnd =
        20 + static_cast<unsigned char>(bytes[12]) + 256 * static_cast<unsigned char>(bytes[13]);
    int refused = 0, read = 0;
    const auto attempt = [&](const std::string& content) {
      writeBytes(bad, content);
      try {
        const RunFile r = readRunFile(bad);
        QCOMPARE(r.trace.layers.back().residualOut.rows(), r.trace.tokenCount());
        ++read;
      } catch (const InputError&) {
        ++refused;
      }
    };
    for (std::size_t cut = 0; cut < bytes.size(); cut += 97) attempt(bytes.substr(0, cut));
    for (std::size_t at = 0; at < headerEnd; at += 11) {
      std::string flipped = bytes;
      flipped[at] ^= 0x04;
      attempt(flipped);
    }
    QVERIFY(refused > 0 && read + refused > static_cast<int>(headerEnd / 11));
  }

  void theRecordedRunIsShownForItsModelAndIdsOnly() {
    Params p;
    p.modelDir = dataDir("reference/models/gpt2_tiny");
    p.sentence = kText;
    const auto plainModel = loadCheckpoint(p.modelDir);
    const TokenizedText text = plainModel->tokenize(kText);
    Intervention hooked;
    hooked.ablate = {{0, 1}};
    const Trace recorded = plainModel->forward(text, {}, hooked), plain = plainModel->forward(text);
    QVERIFY(!same(recorded.layers[1].heads[0].attention, plain.layers[1].heads[0].attention));
    const std::string path = file("run.attnlab-run");
    writeRunFile(path, recorded, modelOf(*plainModel, p.modelDir));
    QCOMPARE(QString::fromStdString(setRecordedRun(path)), QString());

    const auto first = std::make_shared<const PipelineResult>(runPipeline(p));
    QVERIFY(dynamic_cast<const RecordedRunModel*>(first->model.get()));
    QVERIFY2(difference(first->trace, recorded).empty(), difference(first->trace, recorded).c_str());
    QCOMPARE(QString::fromStdString(recordedRunNote(*first, p)), QString("hooked run from Python (run.attnlab-run)"));

    // An ablation of the same ids: the model's own ablated run, not one that copies the recorded run's first layers.
    Params ablated = p;
    ablated.prediction.ablate = {{1, 2}};
    const PipelineResult a = runPipeline(ablated, first->model, {}, first);
    Intervention iv;
    iv.ablate = {{1, 2}};
    QVERIFY(difference(a.trace, plainModel->forward(text, {}, iv)).empty());
    QVERIFY(QString::fromStdString(recordedRunNote(a, ablated)).startsWith("live run: an ablation changes"));

    // An edited text: the live run of it (no rows lent from the recorded run).
    Params edited = p;
    edited.sentence = kText + " sat";
    const PipelineResult e = runPipeline(edited, first->model, {}, first);
    QVERIFY(difference(e.trace, plainModel->forward(plainModel->tokenize(edited.sentence))).empty());
    QVERIFY(QString::fromStdString(recordedRunNote(e, edited)).startsWith("live run: the text differs"));

    // Another model: not wrapped, said so.
    Params other;
    other.sentence = kText;
    const PipelineResult b = runPipeline(other);
    QVERIFY(!dynamic_cast<const RecordedRunModel*>(b.model.get()));
    const QString note = QString::fromStdString(recordedRunNote(b, other));
    QVERIFY2(note.contains("is not of this model: it was recorded from the model " +
                           QString::fromStdString(p.modelDir) + ", not the built-in one"),
             qPrintable(note));
  }

  void aFileThatDoesNotReadLeavesEveryRunLive() {
    const std::string path = file("broken.attnlab-run");
    writeBytes(path, "ATTNRUN\n");
    const QString problem = QString::fromStdString(setRecordedRun(path));
    QVERIFY2(problem.contains("is not a run file"), qPrintable(problem));
    Params p;
    p.sentence = kText;
    const PipelineResult r = runPipeline(p);
    QVERIFY(!dynamic_cast<const RecordedRunModel*>(r.model.get()));
    QCOMPARE(QString::fromStdString(recordedRunNote(r, p)), "live run: the run file does not read (" + problem + ")");
  }

  void aBuiltinModelOfAnotherConfigIsNotItsModel() {
    Params p;
    p.sentence = kText;
    const auto model = makeModel(p);
    const std::string path = file("builtin.attnlab-run");
    writeRunFile(path, model->forward(model->tokenize(kText)), {model->info(), "", toJson(p.model), 0});
    QCOMPARE(QString::fromStdString(setRecordedRun(path)), QString());
    QVERIFY(dynamic_cast<const RecordedRunModel*>(runPipeline(p).model.get()));
    Params seeded = p;
    seeded.model.seed += 1;
    const PipelineResult r = runPipeline(seeded);
    QVERIFY(!dynamic_cast<const RecordedRunModel*>(r.model.get()));
    QVERIFY(QString::fromStdString(recordedRunNote(r, seeded)).contains("a built-in model of another configuration"));
  }

 private:
  std::string file(const std::string& name) const {
    return folder_->filePath(QString::fromStdString(name)).toStdString();
  }
  std::unique_ptr<QTemporaryDir> folder_;
};

ATTNLAB_TEST_GUILESS_MAIN(TestRecordedRun)
#include "test_recorded_run.moc"
