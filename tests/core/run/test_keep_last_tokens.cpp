// A text longer than the model's positions (issue 18): refused by default with both lengths named; with
// Params::keepLastTokens its last tokens are kept — at most the model's limit, a BOS the tokenizer prepends kept first
// — and the run is the plain run of exactly those tokens.
#include <QtTest>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/run/pipeline.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string dataDir(const std::string& rel) { return std::string(ATTNLAB_TEST_DATA) + "/" + rel; }

std::string words(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += "w" + std::to_string(i % 17) + " ";
  return s;
}

}  // namespace

class TestKeepLastTokens : public QObject {
  Q_OBJECT
 private slots:
  void gpt2KeepsTheLastTokens() {
    Params p;
    p.modelDir = dataDir("reference/models/gpt2_tiny");  // 48 positions, no BOS prepended
    p.sentence = words(60);
    try {
      runPipeline(p);
      QFAIL("a text over the model's limit ran");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("takes at most 48"), e.what());
    }
    const auto model = loadCheckpoint(p.modelDir);
    const TokenizedText all = model->tokenize(p.sentence);
    QVERIFY(all.ids.size() > 48);
    p.keepLastTokens = 20;
    const PipelineResult r = runPipeline(p, model);
    QCOMPARE(r.text.ids.size(), std::size_t(20));
    QVERIFY(std::equal(r.text.ids.begin(), r.text.ids.end(), all.ids.end() - 20));
    QCOMPARE(r.trace.tokens.back(), all.tokens.back().text);
    p.keepLastTokens = Params::kKeepAsManyAsFit;
    QCOMPARE(runPipeline(p, model).text.ids.size(), std::size_t(48));
    // The kept run is the run of those tokens.
    TokenizedText last;
    last.ids.assign(all.ids.end() - 48, all.ids.end());
    last.tokens.assign(all.tokens.end() - 48, all.tokens.end());
    ATTNLAB_COMPARE_MATRICES(runPipeline(p, model).trace.layers.back().residualOut,
                             model->forward(last).layers.back().residualOut, 1e-6);
  }

  void keepingOnlyTheTokenizersOwnTokensIsRefused() {
    // BERT's text ends in [SEP]: --keep-last 1 ran on [SEP] alone, 2 on [CLS] [SEP]; 3 keeps a word.
    const auto model = loadCheckpoint(dataDir("reference/models/bert_tiny"));
    const TokenizedText t = model->tokenize("the cat sat on the mat");
    for (int keep : {1, 2}) {
      try {
        keepLastTokens(t, keep, model->info().maxTokens, *model);
        QFAIL("kept no text");
      } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("leaves no text, only the tokenizer's own tokens (\"[SEP]\"): keep at "
                                            "least 3"),
                 e.what());
      }
    }
    const TokenizedText kept = keepLastTokens(t, 3, model->info().maxTokens, *model);
    QCOMPARE(kept.tokens.size(), std::size_t(3));
    QCOMPARE(kept.tokens.front().text, t.tokens.front().text);   // [CLS] stays first
    QVERIFY(kept.tokens[1].byteBegin < kept.tokens[1].byteEnd);  // a word of the text
  }

  void aPrependedBosStaysFirst() {
    const auto model = loadCheckpoint(dataDir("reference/decoders/llama-gqa"));  // prepends BOS 406
    TokenizedText t = model->tokenize(words(30));
    QCOMPARE(t.ids[0], 406);  // its BOS, covering no text
    QCOMPARE(t.tokens[0].byteBegin, t.tokens[0].byteEnd);
    const std::vector<int> ids = t.ids;
    const TokenizedText kept = keepLastTokens(t, 8, model->info().maxTokens, *model);
    QCOMPARE(kept.ids.size(), std::size_t(8));
    QCOMPARE(kept.ids[0], ids[0]);
    QVERIFY(std::equal(kept.ids.begin() + 1, kept.ids.end(), ids.end() - 7));
    QCOMPARE(kept.tokens.size(), kept.ids.size());
    QCOMPARE(keepLastTokens(t, 0, 2048, *model).ids, ids);     // 0: unchanged (the model refuses or takes it)
    QCOMPARE(keepLastTokens(t, 1000, 2048, *model).ids, ids);  // fits: unchanged
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestKeepLastTokens)
#include "test_keep_last_tokens.moc"
