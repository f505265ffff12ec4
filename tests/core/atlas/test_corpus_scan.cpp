// core/atlas's corpus scan on the tiny GPT-2 fixture (tests/reference/models/gpt2_tiny): the windows hold the
// files' whole token streams however the reader cuts its chunks; every head's strongest contexts equal a
// brute-force ranking over full forward passes of the same windows (output norms through attribution.h's probe
// passes, edges read off the maps); dla_magnitude equals the mean of |directLogitAttribution| position by
// position; ablation_effect equals forward passes with the head ablated; empty, binary, non-UTF-8, missing and
// folder inputs are notes, a corpus without text an InputError, and a cancelled scan keeps what it scanned.
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "core/atlas/ablation_effect.h"
#include "core/atlas/corpus_reader.h"
#include "core/atlas/corpus_scan.h"
#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/predict/attribution.h"
#include "core/predict/prediction.h"
#include "core/text/token_display.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

const char* kText =
    "The cat sat on the mat. The dog sat on the log. A bird flew over the house, and the cat watched it go.\n"
    "Then the dog barked at the bird, and the cat ran under the table where the mat was warm.\n"
    "Every morning the same cat sat on the same mat, and every evening the dog slept by the door.\n";

std::shared_ptr<const HfModel> tinyGpt2() {
  return loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny");
}

std::string write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

struct Candidate {
  double score;
  std::string source;
  long long tokenIndex;
};

/// The `top` best candidates, best first, earlier first among equals.
std::vector<Candidate> best(std::vector<Candidate> all, int top) {
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  all.resize(std::min<std::size_t>(all.size(), static_cast<std::size_t>(top)));
  return all;
}

std::vector<ScanWindow> allWindows(const Model& model, const CorpusOptions& o) {
  CorpusReader reader(o.files, o.chunkBytes);
  TokenWindows windows(model, reader, o.window);
  std::vector<ScanWindow> out;
  for (ScanWindow w; windows.next(w);) out.push_back(w);
  return out;
}

}  // namespace

class TestCorpusScan : public QObject {
  Q_OBJECT

  fs::path dir_;

 private slots:
  void initTestCase() {
    dir_ = fs::temp_directory_path() / ("attnlab-corpus-test-" + std::to_string(QCoreApplication::applicationPid()));
    fs::remove_all(dir_);
  }
  void cleanupTestCase() { fs::remove_all(dir_); }

  void utf8Validation() {
    QCOMPARE(firstInvalidUtf8("héllo"), std::string_view::npos);
    QCOMPARE(firstInvalidUtf8("ab\xff"), std::size_t(2));
    QCOMPARE(firstInvalidUtf8("ab\xc3"), std::size_t(2));  // cut off at the end of the text
    std::size_t incomplete = 0;
    QCOMPARE(firstInvalidUtf8("ab\xc3", false, &incomplete), std::string_view::npos);  // … of a block
    QCOMPARE(incomplete, std::size_t(2));
    QCOMPARE(firstInvalidUtf8("a\xed\xa0\x80"), std::size_t(1));  // a surrogate
  }

  void windowsHoldTheWholeTokenStream() {
    const auto model = tinyGpt2();
    const std::string text = std::string(kText) + "naïve café → ünïcödé\n" + "wordwithoutanyspaceswordwithoutanyspaces";
    const std::string file = write(dir_ / "stream" / "a.txt", text);
    const std::vector<int> expected = model->tokenize(text).ids;
    for (std::size_t chunk : {8, 64, 1 << 20}) {
      CorpusOptions o;
      o.files = {file};
      o.window = 16;
      o.chunkBytes = chunk;
      std::vector<int> got;
      long long index = 0;
      for (const ScanWindow& w : allWindows(*model, o)) {
        QVERIFY(w.text.tokens.size() <= 16);
        QCOMPARE(w.firstToken, index);
        got.insert(got.end(), w.text.ids.begin(), w.text.ids.end());
        index += static_cast<long long>(w.text.ids.size());
      }
      std::string bytes;  // every byte once, in order, whatever the chunks
      for (int id : got) bytes += tokenBytes(model->vocabularyPiece(id), TokenDisplayStyle::ByteLevel);
      QCOMPARE(bytes, text);
      // Cut only at whitespace, the tokens are the whole text's; a word longer than a chunk is cut between
      // characters.
      if (chunk > 40) QCOMPARE(got, expected);
    }
  }

  void topContextsEqualBruteForce() {
    const auto model = tinyGpt2();
    CorpusOptions o;
    write(dir_ / "top" / "b.txt", kText);
    write(dir_ / "top" / "sub" / "a.txt", std::string(kText) + kText);
    o.files = {(dir_ / "top").string()};  // a folder: its files recursively, in name order
    o.window = 20;
    o.top = 4;
    o.chunkBytes = 100;
    o.ablationTokens = 0;
    HeadAtlas atlas;
    scanCorpus(*model, o, atlas);
    const std::vector<ScanWindow> windows = allWindows(*model, o);
    QCOMPARE(windows.front().source, (dir_ / "top" / "b.txt").string());  // name order: b.txt before sub/
    long long tokens = 0;
    for (const ScanWindow& w : windows) tokens += static_cast<long long>(w.text.tokens.size());
    QCOMPARE(atlas.corpusTokens, tokens);
    // The pattern scores refined over the same windows: previous-token score = mean A[i, i−1] over rows i ≥ 1.
    double previous = 0.0;
    int rows = 0;
    for (const ScanWindow& w : windows) {
      const Trace t = model->forward(w.text);
      for (int i = 1; i < t.tokenCount(); ++i, ++rows) previous += t.layers[1].heads[2].attention(i, i - 1);
    }
    QVERIFY(std::abs(atlas.metrics.at("corpus_previous_token")[1][2] - previous / rows) <= 1e-5);
    QVERIFY(atlas.metrics.count("corpus_entropy") == 1 && atlas.metrics.count("corpus_bos") == 1);
    for (auto [layer, head] : {std::pair{0, 1}, {1, 3}}) {
      std::vector<Candidate> norms, edges;
      for (const ScanWindow& w : windows) {
        const Trace t = model->forward(w.text);
        const Mat& a = t.layers[layer].heads[head].attention;
        for (int i = 0; i < t.tokenCount(); ++i) {
          const HeadContributions parts = headContributions(*model, w.text, t, i);
          norms.push_back({parts.heads[layer].row(head).norm(), w.source, w.firstToken + i});
          if (i >= 1) edges.push_back({a.row(i).segment(1, i).maxCoeff(), w.source, w.firstToken + i});
        }
      }
      const std::vector<StrongContext>& got = atlas.topExamples.at(headKey(layer, head));
      QCOMPARE(got.size(), std::size_t(8));
      const std::vector<Candidate> wantNorm = best(norms, 4), wantEdge = best(edges, 4);
      for (std::size_t r = 0; r < 4; ++r) {
        const StrongContext& n = got[r];
        const StrongContext& e = got[4 + r];
        QCOMPARE(n.kind, std::string("output_norm"));
        QCOMPARE(e.kind, std::string("attention_edge"));
        QVERIFY(std::abs(n.score - wantNorm[r].score) <= 1e-5 * std::max(1.0, wantNorm[r].score));
        QCOMPARE(n.tokenIndex, wantNorm[r].tokenIndex);
        QCOMPARE(n.source, wantNorm[r].source);
        QVERIFY(std::abs(e.score - wantEdge[r].score) <= 1e-6);
        QCOMPARE(e.tokenIndex, wantEdge[r].tokenIndex);
        // The snippet holds the query and its key, with the head's attention between them.
        QVERIFY(e.key >= 1 && e.key <= e.position);
        QCOMPARE(static_cast<double>(e.attention[static_cast<std::size_t>(e.key)]), e.score);
        QCOMPARE(e.tokens.size(), e.attention.size());
        QVERIFY(n.tokens.size() <= 24 && n.key == -1);
      }
    }
  }

  void dlaMagnitudeEqualsPerPositionAttribution() {
    const auto model = tinyGpt2();
    CorpusOptions o;
    o.files = {write(dir_ / "dla" / "a.txt", kText)};
    o.window = 24;
    o.ablationTokens = 0;
    HeadAtlas atlas;
    scanCorpus(*model, o, atlas);
    MatD sum = MatD::Zero(2, 4);
    int count = 0;
    for (const ScanWindow& w : allWindows(*model, o)) {
      const Trace t = model->forward(w.text);
      for (int i = 0; i + 1 < t.tokenCount(); ++i, ++count) {
        const Attribution a =
            directLogitAttribution(*model, t, headContributions(*model, w.text, t, i), w.text.ids[i + 1]);
        sum += a.heads.cwiseAbs();
      }
    }
    const HeadGrid& got = atlas.metrics.at("dla_magnitude");
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 4; ++h) {
        const double want = sum(l, h) / count;
        QVERIFY2(std::abs(got[l][h] - want) <= 1e-4 * std::max(1.0, want), headKey(l, h).c_str());
      }
  }

  void ablationEffectEqualsAblatedForwardPasses() {
    const auto model = tinyGpt2();
    CorpusOptions o;
    o.files = {write(dir_ / "ablation" / "a.txt", kText)};
    o.window = 24;
    o.ablationTokens = 14;
    HeadAtlas atlas;
    scanCorpus(*model, o, atlas);
    TokenizedText text = model->tokenize(kText);
    text.tokens.resize(14);
    text.ids.resize(14);
    const Trace clean = model->forward(text);
    Intervention iv;
    iv.ablate = {{1, 2}};
    const Trace ablated = model->forward(text, {}, iv);
    double sum = 0.0;
    for (int i = 0; i + 1 < 14; ++i) {
      auto loss = [&](const Trace& t) {
        const VecD p = softmaxAt(rowLogits(*model->unembedding(), t.layers.back().residualOut.row(i).transpose()));
        return -std::log(p(text.ids[i + 1]));
      };
      sum += std::abs(loss(ablated) - loss(clean));
    }
    QVERIFY(std::abs(atlas.metrics.at("ablation_effect")[1][2] - sum / 13) <= 1e-5);
    QVERIFY(atlas.metrics.at("ablation_effect")[1][2] > 0.0);
    const auto& notes = atlas.notes;
    QVERIFY(std::find(notes.begin(), notes.end(), "corpus: ablation effect on the first 14 tokens, 13 positions") !=
            notes.end());
    QCOMPARE(evenlySpacedPositions(100, 4), (std::vector<int>{0, 33, 65, 98}));
  }

  void badInputIsNotedOrRefused() {
    const auto model = tinyGpt2();
    const fs::path bad = dir_ / "bad";
    write(bad / "1-empty.txt", "");
    write(bad / "2-binary.bin", std::string("PK\0\3 zip", 8));
    write(bad / "3-latin1.txt", "hello caf\xe9 world");
    fs::create_directories(bad / "4-empty-folder");
    CorpusOptions o;
    o.files = {bad.string(), (dir_ / "missing.txt").string()};
    o.window = 16;
    HeadAtlas atlas;
    try {
      scanCorpus(*model, o, atlas);
      QFAIL("a corpus without text must be refused");
    } catch (const InputError& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("no text") != std::string::npos && m.find("missing.txt") != std::string::npos, m.c_str());
    }
    auto noted = [&](const std::string& part) {
      for (const std::string& n : atlas.notes)
        if (n.find(part) != std::string::npos) return true;
      return false;
    };
    QVERIFY(noted("1-empty.txt: the file is empty"));
    QVERIFY(noted("2-binary.bin: binary file (a NUL byte at offset 2)"));
    QVERIFY(noted("3-latin1.txt: not UTF-8 text (the first bad byte at offset 9)"));
    QVERIFY(noted("cannot read " + (dir_ / "missing.txt").string() + ": no such file or folder"));
    // With one good file the others are skipped with the same notes.
    o.files.push_back(write(dir_ / "good.txt", kText));
    scanCorpus(*model, o, atlas);
    QVERIFY(atlas.corpusTokens > 0);
    QVERIFY(noted("3-latin1.txt: not UTF-8 text (the first bad byte at offset 9)"));
  }

  void identicalFilesAreScannedOnce() {
    // Issue 31: a copy of a file (or one path given twice) gave every context twice; it is scanned once, with a note.
    const auto model = tinyGpt2();
    const std::string a = write(dir_ / "same" / "a.txt", kText), b = write(dir_ / "same" / "b.txt", kText);
    std::string changed = kText;
    changed[4] = 'b';  // "The bat": same size, other bytes
    const std::string c = write(dir_ / "same" / "c.txt", changed);
    CorpusOptions o;
    o.window = 16;
    o.files = {a};
    HeadAtlas one;
    scanCorpus(*model, o, one);
    o.files = {a, b, a};
    HeadAtlas copies;
    scanCorpus(*model, o, copies);
    QCOMPARE(copies.corpusTokens, one.corpusTokens);
    const auto noted = [&](const std::string& text) {
      return std::find(copies.notes.begin(), copies.notes.end(), text) != copies.notes.end();
    };
    QVERIFY(noted("corpus: skipped " + b + ": the same bytes as " + a + ", scanned once"));
    QVERIFY(noted("corpus: skipped " + a + ": the same bytes as " + a + ", scanned once"));
    QCOMPARE(copies.topExamples.size(), one.topExamples.size());
    for (const auto& [head, contexts] : one.topExamples) {
      const std::vector<StrongContext>& got = copies.topExamples.at(head);
      QCOMPARE(got.size(), contexts.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].source, a);
        QCOMPARE(got[i].tokenIndex, contexts[i].tokenIndex);
        QCOMPARE(got[i].score, contexts[i].score);
      }
    }
    o.files = {a, c};  // same size, different bytes: both scanned
    HeadAtlas both;
    scanCorpus(*model, o, both);
    QVERIFY(both.corpusTokens > one.corpusTokens);
    QVERIFY(std::none_of(both.notes.begin(), both.notes.end(),
                         [](const std::string& n) { return n.find("same bytes") != std::string::npos; }));
  }

  void cancelKeepsWhatWasScanned() {
    const auto model = tinyGpt2();
    CorpusOptions o;
    o.files = {write(dir_ / "cancel" / "a.txt", std::string(kText) + kText)};
    o.window = 16;
    std::atomic<bool> cancel{false};
    RunControl control;
    control.cancel = &cancel;
    int calls = 0;
    HeadAtlas atlas;
    QVERIFY_EXCEPTION_THROWN(scanCorpus(
                                 *model, o, atlas,
                                 [&](const HeadAtlas& a, double fraction) {
                                   QVERIFY(fraction > 0.0 && fraction < 1.0);
                                   QVERIFY(a.corpusTokens > 0);
                                   if (++calls == 2) cancel = true;
                                 },
                                 control),
                             Cancelled);
    QCOMPARE(calls, 2);
    QCOMPARE(atlas.corpusTokens, 32LL);
    QCOMPARE(atlas.topExamples.at("0.0").size(), std::size_t(20));
    QVERIFY(atlas.metrics.count("dla_magnitude") == 1 && atlas.metrics.count("ablation_effect") == 0);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCorpusScan)
#include "test_corpus_scan.moc"
