// "Keep the last N tokens" (issue 31): the end of a text that fits a model's positions, the tokenizer's own tokens
// counted. Checked against the model's own tokenization of the whole text: the tail's tokens are the whole text's last
// tokens.
#include <QtTest>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/run/text_tail.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string dataDir(const std::string& rel) { return std::string(ATTNLAB_TEST_DATA) + "/" + rel; }

std::string words(int count) {
  std::string s;
  for (int i = 0; i < count; ++i) s += "w" + std::to_string(i % 17) + " ";
  return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

class TestTextTail : public QObject {
  Q_OBJECT
 private slots:
  void gpt2KeepsExactlyItsPositions() {
    const auto model = loadCheckpoint(dataDir("reference/models/gpt2_tiny"));  // 48 positions, no BOS
    QCOMPARE(model->info().maxTokens, 48);
    const std::string text = words(400);
    const TokenizedText all = model->tokenize(text);
    QVERIFY(all.ids.size() > 48);
    const std::string tail = textTail(*model, text, 48);
    QVERIFY(endsWith(text, tail));
    const TokenizedText kept = model->tokenize(tail);
    QCOMPARE(kept.ids.size(), std::size_t(48));
    QVERIFY(std::equal(kept.ids.begin(), kept.ids.end(), all.ids.end() - 48));
  }

  void theTokenizersOwnTokensCount() {
    // BERT adds [CLS] and [SEP]: 10 positions leave 8 tokens of text.
    const auto model = loadCheckpoint(dataDir("reference/models/bert_tiny"));
    const std::string text = "the cat sat on the mat and the dog sat on the rug and then they slept";
    const TokenizedText all = model->tokenize(text);
    const std::string tail = textTail(*model, text, 10);
    QVERIFY(endsWith(text, tail));
    const TokenizedText kept = model->tokenize(tail);
    QVERIFY(kept.ids.size() <= 10);
    QCOMPARE(kept.ids.front(), all.ids.front());  // [CLS]
    const std::size_t n = kept.ids.size() - 1;    // its text and [SEP]: the whole text's last ones
    QVERIFY(std::equal(kept.ids.begin() + 1, kept.ids.end(), all.ids.end() - static_cast<std::ptrdiff_t>(n)));
    QCOMPARE(static_cast<int>(text.size() - tail.size()), all.tokens[all.tokens.size() - n].byteBegin);
    // The longest: the tiny vocabulary splits words into pieces, so the tail is "they slept", and one word more
    // does not fit.
    QCOMPARE(tail, std::string("they slept"));
    QVERIFY(model->tokenize("then " + tail).ids.size() > 10);
  }

  void theShippedModelKeepsItsBos() {
    const auto model = loadShippedModel(kShippedInductionModel);  // 33 positions, a <bos> first
    const std::string text = words(100);
    const std::string tail = textTail(*model, text, model->info().maxTokens);
    const TokenizedText kept = model->tokenize(tail);
    QCOMPARE(kept.tokens.size(), std::size_t(33));
    QCOMPARE(kept.tokens.front().text, std::string("<bos>"));
    QVERIFY(endsWith(text, tail));
    QCOMPARE(model->tokenize(text).tokens.back().text, kept.tokens.back().text);
  }

  void aTextThatFitsIsUnchanged() {
    const auto model = loadShippedModel(kShippedInductionModel);
    QCOMPARE(textTail(*model, "the cat sat", 33), std::string("the cat sat"));
  }

  void noRoomForTextIsAMessage() {
    const auto model = loadCheckpoint(dataDir("reference/models/bert_tiny"));
    try {
      textTail(*model, "the cat sat on the mat", 2);
      QFAIL("a tail without text");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("no token of the text fits in 2 positions"), e.what());
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTextTail)
#include "test_text_tail.moc"
