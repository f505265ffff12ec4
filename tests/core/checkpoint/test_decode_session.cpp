// Key/value-cached decoding (core/model/decode_session.h, core/model/generate.h): for GPT-2 and the decoder
// families, 32 greedy steps with the cache give the tokens of recomputing the whole sequence each step
// (forward + unembedding()->logits of the last row), and every cached step's logits equal the recomputed
// ones to ≤ 1e-4; Mistral's window (4) and Gemma 2's soft-caps are exercised well past the window. Sampling
// with a seed repeats; bad input gets a message.
#include <QtTest>

#include <algorithm>
#include <functional>
#include <memory>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/builtin_model.h"
#include "core/model/generate.h"
#include "tests/fuzzy_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string dataDir(const QString& rel) { return std::string(ATTNLAB_TEST_DATA) + "/" + rel.toStdString(); }

/// The logits of the last token of `ids`, from a full forward pass [vocab].
Vec recomputed(const Model& m, const std::vector<int>& ids, const Intervention& iv = {}) {
  TokenizedText t;
  for (int id : ids) {
    t.ids.push_back(id);
    t.tokens.push_back(Token{m.vocabularyPiece(id)});
  }
  const Trace trace = m.forward(t, {}, iv);
  return m.unembedding()->logits(trace.layers.back().residualOut.bottomRows(1)).row(0).transpose();
}

int argmax(const Vec& v) {
  int i = 0;
  v.maxCoeff(&i);
  return i;
}

std::vector<int> ids(const std::vector<GeneratedToken>& g) {
  std::vector<int> out;
  for (const GeneratedToken& t : g) out.push_back(t.id);
  return out;
}

}  // namespace

class TestDecodeSession : public QObject {
  Q_OBJECT
 private slots:
  void cachedEqualsRecomputed_data() {
    QTest::addColumn<QString>("dir");
    QTest::addColumn<int>("steps");
    QTest::newRow("gpt2_tiny") << "reference/models/gpt2_tiny" << 32;
    for (const char* n : {"llama-gqa", "llama3-scaled", "llama-linear-bias", "mistral-window", "qwen2-bias",
                          "qwen3-norms", "gemma-mqa", "gemma2-softcap", "gemma3-pattern", "gemma3-layer-types"})
      QTest::newRow(n) << QString("reference/decoders/") + n << 32;
    QTest::newRow("llama-dynamic") << "reference/decoders/llama-dynamic" << 12;  // 16 positions
  }

  void cachedEqualsRecomputed() {
    QFETCH(QString, dir);
    QFETCH(int, steps);
    const auto model = loadCheckpoint(dataDir(dir));
    std::vector<int> seq = model->tokenize("the cat walks").ids;
    seq.resize(std::min<std::size_t>(seq.size(), 3));  // the tiny vocabularies cut it into many pieces
    QVERIFY(!seq.empty());
    const std::vector<int> prompt = seq;
    auto session = model->startDecoding(prompt);
    QVERIFY(session);
    QCOMPARE(session->tokenCount(), static_cast<int>(prompt.size()));
    for (int s = 0; s < steps; ++s) {
      const Vec expected = recomputed(*model, seq);
      std::string why;
      QVERIFY2(test::matricesClose(session->logits(), expected, 1e-4, &why),
               qPrintable(QString("step %1: %2").arg(s).arg(why.c_str())));
      const int next = argmax(expected);
      seq.push_back(next);
      if (s + 1 < steps) session->append(next);
    }
    QCOMPARE(session->tokenCount(), static_cast<int>(prompt.size()) + steps - 1);
    // generate() greedily makes the same tokens, with their pieces and probabilities.
    const std::vector<GeneratedToken> g = generate(*model, prompt, steps, SamplingOptions{});
    QCOMPARE(ids(g), std::vector<int>(seq.begin() + static_cast<long>(prompt.size()), seq.end()));
    QCOMPARE(g.front().step, 1);
    QCOMPARE(g.front().piece, model->vocabularyPiece(g.front().id));
    QVERIFY(g.front().prob > 0.0 && g.front().prob <= 1.0);
  }

  void ablatedModelWrites() {
    // With heads switched off, the ablated model writes: each token is the argmax of the ablated forward
    // pass over the whole sequence, and the text differs from the plain model's.
    const auto model = loadCheckpoint(dataDir("reference/models/gpt2_tiny"));
    const std::vector<int> prompt = model->tokenize("the cat").ids;
    Intervention iv;
    for (int l = 0; l < model->info().layers; ++l)
      for (int h = 0; h < model->info().heads; ++h) iv.ablate.push_back({l, h});
    const std::vector<GeneratedToken> g = generate(*model, prompt, 6, SamplingOptions{}, {}, {}, iv);
    std::vector<int> seq = prompt;
    for (const GeneratedToken& t : g) {
      QCOMPARE(t.id, argmax(recomputed(*model, seq, iv)));
      seq.push_back(t.id);
    }
    QVERIFY(ids(g) != ids(generate(*model, prompt, 6, SamplingOptions{})));
  }

  void samplingWithASeedRepeats() {
    const auto model = loadCheckpoint(dataDir("reference/models/gpt2_tiny"));
    const std::vector<int> prompt = model->tokenize("the cat").ids;
    SamplingOptions o;
    o.greedy = false;
    o.temperature = 1.5;
    o.seed = 7;
    const auto a = generate(*model, prompt, 20, o), b = generate(*model, prompt, 20, o);
    QCOMPARE(ids(a), ids(b));
    o.seed = 8;
    QVERIFY(ids(generate(*model, prompt, 20, o)) != ids(a));
    // top-k = 1 keeps only the most probable token: greedy, whatever the seed.
    o.topK = 1;
    QCOMPARE(ids(generate(*model, prompt, 10, o)), ids(generate(*model, prompt, 10, SamplingOptions{})));
  }

  void chooseTokenTruncates() {
    Vec logits(4);
    logits << 0.0f, 3.0f, 2.9f, -5.0f;
    SamplingOptions o;
    o.greedy = false;
    o.topP = 0.5;  // token 1 alone holds about half the mass; 1 and 2 reach it together
    Rng rng(3);
    for (int i = 0; i < 200; ++i) {
      double p = 0;
      const int id = chooseToken(logits, o, rng, &p);
      QVERIFY2(id == 1 || id == 2, qPrintable(QString::number(id)));
      QVERIFY(p > 0.4 && p < 0.55);
    }
    o.topP = 1.0;
    o.topK = 2;
    int seen3 = 0;
    for (int i = 0; i < 200; ++i) seen3 += chooseToken(logits, o, rng, nullptr) == 0;
    QCOMPARE(seen3, 0);
  }

  void badInputGetsAMessage() {
    const auto gpt2 = loadCheckpoint(dataDir("reference/models/gpt2_tiny"));  // 48 positions
    const std::vector<int> prompt = gpt2->tokenize("the cat").ids;
    const auto message = [](const std::function<void()>& f) {
      try {
        f();
      } catch (const InputError& e) {
        return std::string(e.what());
      }
      return std::string("no error");
    };
    QVERIFY(message([&] { generate(*gpt2, prompt, 0, {}); }).find("at least 1") != std::string::npos);
    QVERIFY(message([&] { generate(*gpt2, {}, 3, {}); }).find("prompt") != std::string::npos);
    QVERIFY(message([&] { generate(*gpt2, prompt, 47, {}); }).find("48 positions") != std::string::npos);
    SamplingOptions hot;
    hot.greedy = false;
    hot.temperature = 0.0;
    QVERIFY(message([&] { generate(*gpt2, prompt, 3, hot); }).find("temperature") != std::string::npos);
    auto session = gpt2->startDecoding(prompt);
    QVERIFY(message([&] { session->append(1 << 20); }).find("vocabulary") != std::string::npos);
    QCOMPARE(session->tokenCount(), static_cast<int>(prompt.size()));  // unchanged
    const BuiltinModel builtin(ModelConfig{});
    QVERIFY(message([&] { generate(builtin, {0, 1}, 3, {}); }).find("unembedding") != std::string::npos);
    const auto bert = loadCheckpoint(dataDir("fixtures/lm-buddy/bert_tiniest"));
    QVERIFY(!bert->startDecoding({101, 102}));
    // Dynamic NTK RoPE: the cache stops at max_position_embeddings (16) and says why.
    const auto dynamic = loadCheckpoint(dataDir("reference/decoders/llama-dynamic"));
    const std::string why = message([&] { generate(*dynamic, {1, 2, 3}, 14, {}); });
    QVERIFY2(why.find("dynamic NTK") != std::string::npos, why.c_str());
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestDecodeSession)
#include "test_decode_session.moc"
