// An encoder–decoder folder's generation rules (core/checkpoint/generation_rules.h): transformers' logits processors
// for greedy and sampled decoding, read from generation_config.json or config.json. Each rule on hand-made logits and
// inputs (the ids it must ban or force worked out by hand); the files they are read from, and malformed values; and
// the rules in Translate (EncDecModel::generateGreedy), Generate N (generateTarget) and Next token
// (EncDecRun::nextTokenId) on builtin:reverse with a generation_config.json added, against chains of
// EncDecModel::forward()'s last rows with the banned ids removed by hand here. (The tiny checkpoints' greedy
// references, which carry bad_words_ids / forced_bos / forced_eos, are checked in test_encdec_models.)
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include "core/base/errors.h"
#include "core/checkpoint/generation_rules.h"
#include "core/run/encdec_generate.h"
#include "core/run/model_card.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

Vec ramp(int n) {  // logits 0, 1, …, n − 1: the argmax is the last id until a rule bans it
  Vec v(n);
  for (int i = 0; i < n; ++i) v(i) = static_cast<float>(i);
  return v;
}

std::vector<int> banned(const Vec& v) {
  std::vector<int> out;
  for (int i = 0; i < v.size(); ++i)
    if (std::isinf(v(i)) && v(i) < 0) out.push_back(i);
  return out;
}

void write(const QString& path, const std::string& text) { std::ofstream(path.toStdString()) << text; }

/// builtin:reverse copied to `tmp` (config, weights, tokenizer), with `generation` as its generation_config.json
/// when not empty.
std::shared_ptr<const EncDecFolderModel> reverseWith(const QTemporaryDir& tmp, const std::string& generation) {
  const QString from = QString::fromStdString(shippedEncDecFolder(kShippedReverseModel));
  for (const QString& f : QDir(from).entryList(QDir::Files)) QFile::copy(from + "/" + f, tmp.path() + "/" + f);
  if (!generation.empty()) write(tmp.path() + "/generation_config.json", generation);
  return openEncDecModel(tmp.path().toStdString());
}

/// The greedy chain from the start token: forward()'s last row each step, `ban` removed, argmax; eos ends it.
std::vector<int> chainWithout(const EncDecFolderModel& m, const std::vector<int>& src, const std::vector<int>& ban,
                              int steps) {
  std::vector<int> input = {m.model().config().decoderStartId}, out;
  for (int s = 0; s < steps; ++s) {
    const EncDecTrace t = m.model().forward(src, input);
    Vec last = t.logits.row(t.logits.rows() - 1).transpose();
    for (int id : ban) last(id) = -1e30f;
    Eigen::Index best = 0;
    last.maxCoeff(&best);
    out.push_back(static_cast<int>(best));
    if (best == m.model().config().eosId) break;
    input.push_back(static_cast<int>(best));
  }
  return out;
}

}  // namespace

class TestGenerationRules : public QObject {
  Q_OBJECT

 private slots:
  void eachRuleByHand() {
    GenerationRules r;
    Vec v = ramp(8);
    applyGenerationRules(r, {0, 3}, 2, 0, v);
    QVERIFY(banned(v).empty());  // no rules: nothing changes

    r = {};
    r.badWords = {{7}, {5, 6}};  // 7 always; 6 only right after a 5
    v = ramp(8);
    applyGenerationRules(r, {0, 3}, 2, 0, v);
    QCOMPARE(banned(v), std::vector<int>({7}));
    v = ramp(8);
    applyGenerationRules(r, {0, 3, 5}, 2, 0, v);
    QCOMPARE(banned(v), std::vector<int>({6, 7}));

    r = {};
    r.minLength = 3;  // eos (2) banned while the input, start token included, is shorter than 3
    v = ramp(8);
    applyGenerationRules(r, {0, 4}, 2, 0, v);
    QCOMPARE(banned(v), std::vector<int>({2}));
    v = ramp(8);
    applyGenerationRules(r, {0, 4, 5}, 2, 0, v);
    QVERIFY(banned(v).empty());

    r = {};
    r.noRepeatNgram = 2;  // input 0 4 7 4: the bigram (4, 7) occurred, so after the last 4, 7 is banned
    v = ramp(8);
    applyGenerationRules(r, {0, 4, 7, 4}, 2, 0, v);
    QCOMPARE(banned(v), std::vector<int>({7}));
    r.noRepeatNgram = 3;  // input 0 1 2 3 1 2: (1, 2, 3) occurred, so after "1 2", 3 is banned
    v = ramp(8);
    applyGenerationRules(r, {0, 1, 2, 3, 1, 2}, 2, 0, v);
    QCOMPARE(banned(v), std::vector<int>({3}));
    v = ramp(8);
    applyGenerationRules(r, {0, 1}, 2, 0, v);  // shorter than n − 1 + 1: nothing to repeat yet
    QVERIFY(banned(v).empty());
    r.noRepeatNgram = 1;  // every token already in the input
    v = ramp(8);
    applyGenerationRules(r, {0, 5, 3}, 2, 0, v);
    QCOMPARE(banned(v), std::vector<int>({0, 3, 5}));

    r = {};
    r.forcedBos = 4;  // the first generated token (input = the start token alone)
    v = ramp(8);
    applyGenerationRules(r, {0}, 2, 0, v);
    QCOMPARE(banned(v), std::vector<int>({0, 1, 2, 3, 5, 6, 7}));
    QCOMPARE(v(4), 4.0f);
    v = ramp(8);
    applyGenerationRules(r, {0, 4}, 2, 0, v);
    QVERIFY(banned(v).empty());

    r = {};
    r.forcedEos = 2;  // at input length max_length − 1 = 4
    v = ramp(8);
    applyGenerationRules(r, {0, 5, 6}, 2, 5, v);
    QVERIFY(banned(v).empty());
    applyGenerationRules(r, {0, 5, 6, 7}, 2, 5, v);
    QCOMPARE(banned(v), std::vector<int>({0, 1, 3, 4, 5, 6, 7}));
    v = ramp(8);
    applyGenerationRules(r, {0, 5, 6, 7}, 2, 0, v);  // no length limit: never forced
    QVERIFY(banned(v).empty());
  }

  void lengthLimit() {
    GenerationRules r;
    QCOMPARE(generationLengthLimit(r, 0, 0), 0);
    QCOMPARE(generationLengthLimit(r, 11, 0), 12);  // a full decoder input of 11 still gives one more token
    QCOMPARE(generationLengthLimit(r, 11, 4), 5);   // max_new_tokens 4: max_length 1 + 4
    r.maxLength = 3;
    QCOMPARE(generationLengthLimit(r, 11, 4), 3);
    QCOMPARE(generationLengthLimit(r, 0, 0), 3);
  }

  void readsTheRightFile() {
    QTemporaryDir tmp;
    const QString config = tmp.path() + "/config.json";
    write(config,
          R"({"bad_words_ids": [[9], [2]], "forced_eos_token_id": 2, "num_beams": 4, "no_repeat_ngram_size": 3})");
    GenerationRules r = readGenerationRules(tmp.path().toStdString(), config.toStdString(), 10, 2);
    QCOMPARE(r.file, std::string("config.json"));
    QCOMPARE(r.badWords, std::vector<std::vector<int>>({{9}}));  // [eos] dropped, as transformers does
    QCOMPARE(r.forcedEos, 2);
    QCOMPARE(r.noRepeatNgram, 3);
    QCOMPARE(r.numBeams, 4);
    QCOMPARE(describeGenerationRules(r),
             std::string("bad words [9] · forced eos 2 at the length limit · no repeated 3-grams · Hugging Face "
                         "searches 4 beams; here greedy or sampled"));
    // generation_config.json, when present, replaces config.json's fields (transformers reads one or the other).
    write(tmp.path() + "/generation_config.json", R"({"forced_bos_token_id": 1, "min_length": 4})");
    r = readGenerationRules(tmp.path().toStdString(), config.toStdString(), 10, 2);
    QCOMPARE(r.file, std::string("generation_config.json"));
    QVERIFY(r.badWords.empty());
    QCOMPARE(r.forcedBos, 1);
    QCOMPARE(r.forcedEos, -1);
    QCOMPARE(r.minLength, 4);
  }

  void malformedValuesAreNamed_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not a list") << R"({"bad_words_ids": 5})"
                                << "bad_words_ids is not a list";
    QTest::newRow("flat list") << R"({"bad_words_ids": [5]})"
                               << "holds 5, not a non-empty list";
    QTest::newRow("empty sequence") << R"({"bad_words_ids": [[]]})"
                                    << "holds [], not a non-empty list";
    QTest::newRow("out of range") << R"({"bad_words_ids": [[10]]})"
                                  << "holds 10: not a token id";
    QTest::newRow("text id") << R"({"bad_words_ids": [["x"]]})"
                             << "holds \"x\": not a token id";
    QTest::newRow("negative length") << R"({"min_length": -1})"
                                     << "min_length";
    QTest::newRow("forced id too large") << R"({"forced_bos_token_id": 99})"
                                         << "forced_bos_token_id";
    QTest::newRow("not JSON") << "{bad"
                              << "generation_config.json";
  }
  void malformedValuesAreNamed() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    QTemporaryDir tmp;
    write(tmp.path() + "/config.json", "{}");
    write(tmp.path() + "/generation_config.json", json.toStdString());
    try {
      readGenerationRules(tmp.path().toStdString(), (tmp.path() + "/config.json").toStdString(), 10, 2);
      QFAIL("accepted");
    } catch (const InputError& e) {
      const QString why = QString::fromUtf8(e.what());
      QVERIFY2(why.contains(expected) && why.contains("generation_config.json"), qPrintable(why));
    }
  }

  /// builtin:reverse with its plain first token banned: Translate, Generate N and Next token all take the runner-up,
  /// and every later step is the chain of forward()'s rows with that id removed.
  void badWordsInTranslateGenerateAndNextToken() {
    QTemporaryDir plainDir;
    const auto plain = reverseWith(plainDir, "");
    const std::string source = "d c b a";
    const std::vector<int> src = plain->tokenizeSource(source).ids;
    const std::vector<int> before = plain->model().generateGreedy(src, 8);
    QCOMPARE(plain->decodeTarget(before), std::string("a b c d"));
    const int first = before.front();

    QTemporaryDir tmp;
    const auto m = reverseWith(tmp, "{\"bad_words_ids\": [[" + std::to_string(first) + "]]}");
    QCOMPARE(m->model().config().generation.badWords, std::vector<std::vector<int>>({{first}}));
    const std::vector<int> expected = chainWithout(*m, src, {first}, 8);
    QVERIFY(expected.front() != first);
    // builtin:reverse's config.json forces eos at the length limit: for a Translate of at most 8 tokens (max_length
    // 1 + 8), an 8th token that is not eos becomes eos. Generate N continues a text, so its N sets no limit.
    std::vector<int> budgeted = expected;
    if (budgeted.size() == 8) budgeted.back() = m->model().config().eosId;
    const std::vector<int> translated = m->model().generateGreedy(src, 8);
    QCOMPARE(translated, budgeted);
    for (int id : translated) QVERIFY(id != first);
    QCOMPARE(translateGreedy(*m, source, 8).ids, budgeted);

    std::vector<int> generated;
    for (const GeneratedToken& t : generateTarget(*m, source, "", 8, {}).tokens) generated.push_back(t.id);
    QCOMPARE(generated, expected);

    // Next token on the run of the empty target: forward()'s last row without the banned id.
    EncDecRun run;
    run.model = m;
    run.target = m->tokenizeTarget("");
    run.trace = std::make_shared<EncDecTrace>(m->model().forward(src, run.target.ids));
    QCOMPARE(run.nextTokenId(), expected.front());
    // The same run without the rules: the plain argmax, the banned id.
    run.model = plain;
    QCOMPARE(run.nextTokenId(), first);
  }

  /// A forced first token, min length and forced eos at a Translate budget, on builtin:reverse.
  void forcedTokensAndLengths() {
    QTemporaryDir tmp;
    const auto m = reverseWith(tmp, R"({"forced_bos_token_id": 5, "forced_eos_token_id": 2, "min_length": 3})");
    const EncDecConfig& c = m->model().config();
    QCOMPARE(c.eosId, 2);
    const std::vector<int> src = m->tokenizeSource("d c b a").ids;
    const std::vector<int> three = m->model().generateGreedy(src, 3);
    QCOMPARE(three.size(), size_t(3));
    QCOMPARE(three.front(), 5);  // forced
    QCOMPARE(three.back(), 2);   // the budget's last token: forced eos (max_length = 1 + 3)
    // min_length 3: eos cannot come as the first generated token (input length 1 < 3) nor the second (2 < 3).
    GenerationRules r = c.generation;
    Vec v = Vec::Zero(c.decoderVocabSize);
    v(2) = 100;
    applyGenerationRules(r, {c.decoderStartId, 5}, c.eosId, 0, v);
    QVERIFY(std::isinf(v(2)));
    // The card names the rules and the file.
    const ModelCard card = modelCard(*m, tmp.path().toStdString());
    QVERIFY2(card.generation.find("forced first token 5") != std::string::npos &&
                 card.generation.find("min length 3") != std::string::npos &&
                 card.generation.find("(generation_config.json)") != std::string::npos,
             card.generation.c_str());
    bool listed = false;
    for (const ModelCardFile& f : card.files) listed = listed || f.name == "generation_config.json";
    QVERIFY(listed);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestGenerationRules)
#include "test_generation_rules.moc"
