// Generate N for an encoder–decoder (core/run/encdec_generate.h) on the shipped builtin:reverse and the tiny Marian
// checkpoint with SentencePiece files: greedy = translateGreedy's first N ids; sampled = a reference loop that
// recomputes the whole decoder with forward() each step (no cache) and draws with chooseToken from the same seed; a
// target is continued; bad input is refused with both lengths named.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

#include "core/base/errors.h"
#include "core/run/encdec_generate.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

/// tests/reference/encdec/marian-spm's weights with tests/reference/tokenizers/spm/marian's files beside them.
std::shared_ptr<const EncDecFolderModel> openMarian(const QTemporaryDir& tmp) {
  const QString weights = QString(ATTNLAB_TEST_DATA) + "/reference/encdec/marian-spm";
  for (const char* f : {"config.json", "model.safetensors"}) QFile::copy(weights + "/" + f, tmp.path() + "/" + f);
  const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/marian";
  for (const QString& f : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + f, tmp.path() + "/" + f);
  return openEncDecModel(tmp.path().toStdString());
}

std::shared_ptr<const EncDecFolderModel> openReverse() {
  return openEncDecModel(shippedEncDecFolder(kShippedReverseModel), {}, kShippedReverseModel);
}

std::vector<int> idsOf(const TargetGeneration& g) {
  std::vector<int> ids;
  for (const GeneratedToken& t : g.tokens) ids.push_back(t.id);
  return ids;
}

/// The reference: each step runs source and the whole decoder input again (forward(), no cache) and chooses from its
/// last logits row with a generator seeded once, stopping after eos.
std::vector<int> recomputed(const EncDecFolderModel& m, const std::string& source, const std::string& target, int steps,
                            const SamplingOptions& o, std::vector<double>* probs = nullptr,
                            const EncDecAblation& ablation = {}) {
  const std::vector<int> src = m.tokenizeSource(source).ids;
  std::vector<int> input = m.tokenizeTarget(target).ids, out;
  Rng rng(o.seed);
  for (int s = 0; s < steps; ++s) {
    const EncDecTrace t = m.model().forward(src, input, true, ablation);
    double p = 0;
    Vec last = t.logits.row(t.logits.rows() - 1).transpose();
    // The folder's one-token bad words (Marian's [[pad]]) are never chosen, as transformers' NoBadWords processor
    // removes them before sampling; the checkpoints here set no other rule that a few steps reach.
    for (const std::vector<int>& bad : m.model().config().generation.badWords)
      if (bad.size() == 1) last(bad[0]) = -std::numeric_limits<float>::infinity();
    const int id = chooseToken(last, o, rng, &p);
    out.push_back(id);
    if (probs) probs->push_back(p);
    if (id == m.model().config().eosId) break;
    input.push_back(id);
  }
  return out;
}

}  // namespace

class TestEncDecGenerate : public QObject {
  Q_OBJECT
 private slots:
  /// Greedy Generate N from an empty target = translateGreedy's first N ids (the same argmax on the same cache), for
  /// every N up to past the end of text; the run ends at eos, which it reports.
  void greedyIsTranslateGreedysFirstN() {
    QTemporaryDir tmp;
    const auto marian = openMarian(tmp);
    for (const auto& [model, source] :
         {std::pair{openReverse(), std::string("d c b a")},
          std::pair{marian, std::string("the attention head looks back at earlier tokens")}}) {
      // A budget past every N below: Translate's budget is transformers' max_new_tokens, whose last token a forced
      // eos (Marian's forced_eos_token_id) takes; Generate N's N is a count of steps, which forces nothing.
      const Translation full = translateGreedy(*model, source, 64);
      QVERIFY(full.ids.size() >= 3);
      const int most = std::min(12, model->model().config().maxPositions - 1);  // builtin:reverse: 10
      for (int n = 1; n <= most; ++n) {
        std::vector<GeneratedToken> seen;
        const TargetGeneration g =
            generateTarget(*model, source, "", n, {}, {}, [&](const GeneratedToken& t) { seen.push_back(t); });
        const std::size_t expected = std::min<std::size_t>(static_cast<std::size_t>(n), full.ids.size());
        QCOMPARE(idsOf(g), std::vector<int>(full.ids.begin(), full.ids.begin() + expected));
        QCOMPARE(seen.size(), g.tokens.size());  // each token was handed over as it was made
        QCOMPARE(g.endOfText, g.tokens.back().id == model->model().config().eosId);
        QCOMPARE(g.tokens.back().step, static_cast<int>(g.tokens.size()));
      }
    }
    // builtin:reverse reverses: "d c b a" → a b c d </s>.
    const auto reverse = openReverse();
    const TargetGeneration g = generateTarget(*reverse, "d c b a", "", 8, {});
    QVERIFY(g.endOfText);
    QCOMPARE(static_cast<int>(g.tokens.size()), 5);
    QCOMPARE(reverse->decodeTarget(idsOf(g)), std::string("a b c d"));
  }

  /// Sampled: the cached run draws what the recomputing reference draws with the same seed (ids and probabilities),
  /// for several seeds and truncations; the same seed twice gives the same ids; a target is continued from its end.
  void sampledEqualsTheRecomputedReference() {
    QTemporaryDir tmp;
    const auto m = openMarian(tmp);
    const std::string source = "the attention head looks back at earlier tokens";
    int differing = 0;
    std::vector<int> first;
    for (std::uint64_t seed : {1u, 7u, 42u}) {
      for (const auto& [k, p] : {std::pair{0, 1.0}, std::pair{20, 1.0}, std::pair{0, 0.9}}) {
        SamplingOptions o;
        o.greedy = false;
        o.temperature = 1.5;
        o.topK = k;
        o.topP = p;
        o.seed = seed;
        std::vector<double> probs;
        const std::vector<int> ref = recomputed(*m, source, "", 10, o, &probs);
        const TargetGeneration g = generateTarget(*m, source, "", 10, o);
        QCOMPARE(idsOf(g), ref);
        for (std::size_t i = 0; i < probs.size(); ++i) QVERIFY(std::abs(g.tokens[i].prob - probs[i]) < 1e-5);
        QCOMPARE(idsOf(generateTarget(*m, source, "", 10, o)), ref);  // reproducible
        if (first.empty()) first = ref;
        differing += ref != first;
      }
    }
    QVERIFY(differing > 0);  // the seeds and truncations do change the draw
    // Continuing a typed target: the decoder reads it first.
    SamplingOptions greedy;
    QCOMPARE(idsOf(generateTarget(*m, source, "head looks", 6, greedy)),
             recomputed(*m, source, "head looks", 6, greedy));
    const auto reverse = openReverse();
    QCOMPARE(reverse->decodeTarget(idsOf(generateTarget(*reverse, "d c b a", "a b", 4, greedy))), std::string("c d"));
  }

  /// Heads switched off (builtin:reverse's cross head 0.h, zero and mean): greedy and sampled Generate N, and
  /// Translate, are the chain of choices from forward(ablation)'s last row recomputed here step by step (what Next
  /// token gives when pressed repeatedly); the ablation changes the translation; an empty ablation is today's cached
  /// path (translateGreedy's ids, "a b c d </s>").
  void ablatedGenerationIsTheAblatedForwardChain() {
    const auto m = openReverse();
    const std::string source = "d c b a";
    const std::vector<int> plain = idsOf(generateTarget(*m, source, "", 8, {}));
    QCOMPARE(idsOf(generateTarget(*m, source, "", 8, {}, {}, {}, EncDecAblation{})), plain);
    QCOMPARE(translateGreedy(*m, source, 8, EncDecAblation{}).ids, plain);
    QCOMPARE(m->decodeTarget(plain), std::string("a b c d"));
    int changed = 0;
    for (AblationMode mode : {AblationMode::Zero, AblationMode::Mean}) {
      for (int head = 0; head < 2; ++head) {
        EncDecAblation ab;
        ab.cross.ablate = {HeadRef{0, head}};
        ab.cross.mode = mode;
        const std::vector<int> ref = recomputed(*m, source, "", 8, SamplingOptions{}, nullptr, ab);
        QVERIFY(!ref.empty());
        QCOMPARE(idsOf(generateTarget(*m, source, "", 8, {}, {}, {}, ab)), ref);
        QCOMPARE(translateGreedy(*m, source, 8, ab).ids, ref);
        changed += ref != plain;
        // Continuing a typed target: the chain starts after it.
        QCOMPARE(idsOf(generateTarget(*m, source, "a b", 4, {}, {}, {}, ab)),
                 recomputed(*m, source, "a b", 4, SamplingOptions{}, nullptr, ab));
        for (std::uint64_t seed : {3u, 11u}) {
          SamplingOptions o;
          o.greedy = false;
          o.temperature = 2.0;
          o.seed = seed;
          std::vector<double> probs;
          const std::vector<int> sampled = recomputed(*m, source, "", 8, o, &probs, ab);
          const TargetGeneration g = generateTarget(*m, source, "", 8, o, {}, {}, ab);
          QCOMPARE(idsOf(g), sampled);
          for (std::size_t i = 0; i < probs.size(); ++i) QVERIFY(std::abs(g.tokens[i].prob - probs[i]) < 1e-9);
        }
      }
    }
    QVERIFY(changed > 0);  // switching a cross head off does change what the model writes
  }

  /// Bad input: an empty source, a target whose tokens fill the positions or that the steps would carry past them
  /// (both lengths named), no steps, a bad temperature; Cancelled between steps.
  void badInput() {
    const auto m = openReverse();
    const int limit = m->model().config().maxPositions;  // 11
    QCOMPARE(limit, 11);
    const auto refused = [&](const std::string& source, const std::string& target, int steps,
                             const std::vector<std::string>& words, const SamplingOptions& o = {}) {
      try {
        generateTarget(*m, source, target, steps, o);
        QFAIL(("not refused: " + source + " / " + target).c_str());
      } catch (const InputError& e) {
        for (const std::string& w : words)
          QVERIFY2(std::string(e.what()).find(w) != std::string::npos, (std::string(e.what()) + " lacks " + w).c_str());
      }
    };
    refused("  ", "", 1, {"source text is empty"});
    const std::string full = "a b c d e f g h i j";  // 10 tokens + the start token
    QCOMPARE(static_cast<int>(m->tokenizeTarget(full).ids.size()), limit);
    QCOMPARE(targetRoom(*m, full), 0);
    QCOMPARE(targetRoom(*m, "a b"), limit - 3);
    refused("d c b a", full, 1, {"has 11 tokens", "11 positions", "no room"});
    refused("d c b a", "a b", 9, {"has 3 tokens", "9 more", "11 positions"});
    QCOMPARE(static_cast<int>(generateTarget(*m, "j i h g f e d c b", "a b", 8, {}).tokens.size()), 8);  // fits
    refused("d c b a", "", 0, {"at least 1"});
    SamplingOptions cold;
    cold.greedy = false;
    cold.temperature = 0;
    refused("d c b a", "", 2, {"temperature"}, cold);
    std::atomic<bool> cancel{true};
    RunControl c;
    c.cancel = &cancel;
    QVERIFY_THROWS_EXCEPTION(Cancelled, generateTarget(*m, "d c b a", "", 2, {}, c));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestEncDecGenerate)
#include "test_encdec_generate.moc"
