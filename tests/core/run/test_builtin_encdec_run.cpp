// The built-in model's rung 7 through the two-text run (issue 33): the parameters at mode "encdec" make a
// TwoTextModel without an output head, and runPipeline gives the encoder–decoder result every two-text view reads —
// the decoder's side with the encoder's beside it, cross maps target × source equal to BuiltinEncDec's own, the words
// as tokens — or a message that says what to type.
#include <QtTest>

#include "core/base/errors.h"
#include "core/run/builtin_two_text.h"
#include "core/run/encdec_run.h"
#include "core/run/model_factory.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

Params rungSeven(const std::string& source, const std::string& target) {
  Params p;
  p.model.mode = Mode::EncDec;
  p.model.seed = 11;
  p.sentence = source;
  p.target = target;
  return p;
}

std::string messageOf(const Params& p) {
  try {
    runPipeline(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestBuiltinEncDecRun : public QObject {
  Q_OBJECT

 private slots:
  void runsBothTexts() {
    const Params p = rungSeven("The cat sat on the mat", "le chat");
    const std::shared_ptr<const Model> model = makeModel(p);
    const auto* two = dynamic_cast<const TwoTextModel*>(model.get());
    QVERIFY(two);
    QVERIFY(!two->hasOutputHead());
    QVERIFY(!two->folder());
    QVERIFY(two->noOutputHeadReason().find("no output head") != std::string::npos);

    const PipelineResult r = runPipeline(p, model);
    QVERIFY(r.encdec && r.encdec->isDecoderSide());
    const PipelineResult& enc = *r.encdec->encoderSide;
    // The words, lower-cased as the built-in tokenizer splits them; no start token on the target.
    QCOMPARE(enc.trace.tokens, (std::vector<std::string>{"the", "cat", "sat", "on", "the", "mat"}));
    QCOMPARE(r.trace.tokens, (std::vector<std::string>{"le", "chat"}));
    QVERIFY(!enc.trace.causal);
    QVERIFY(r.trace.causal);
    QCOMPARE(r.info.layers, p.model.layers);
    QVERIFY(r.info.name.find("decoder") != std::string::npos);
    QVERIFY(enc.info.name.find("encoder") != std::string::npos);

    // The cross maps are BuiltinEncDec's on the same words: target rows × source columns.
    const BuiltinEncDec direct(p.model);
    const EncDecTrace want = direct.forward(enc.trace.tokens, r.trace.tokens);
    const EncDecTrace& got = *r.encdec->trace;
    QCOMPARE(got.cross.size(), want.cross.size());
    for (std::size_t l = 0; l < want.cross.size(); ++l)
      for (std::size_t h = 0; h < want.cross[l].heads.size(); ++h) {
        const Mat& a = got.cross[l].heads[h].attention;
        QCOMPARE(a.rows(), Eigen::Index(2));
        QCOMPARE(a.cols(), Eigen::Index(6));
        QCOMPARE(a, want.cross[l].heads[h].attention);
      }
    QCOMPARE(got.decoderOut, want.decoderOut);
    QCOMPARE(r.trace.layers.back().residualOut, want.decoder.layers.back().residualOut);
    QCOMPARE(got.logits.size(), Eigen::Index(0));
    QCOMPARE(r.encdec->nextTokenId(), -1);  // nothing predicted
  }

  void saysWhatToType() {
    QVERIFY(messageOf(rungSeven("the cat", "")).find("type a target text") != std::string::npos);
    QVERIFY(messageOf(rungSeven("the cat", "   ")).find("type a target text") != std::string::npos);
    QVERIFY(messageOf(rungSeven("", "le chat")).find("source text is empty") != std::string::npos);
    Params ablated = rungSeven("the cat", "le chat");
    ablated.prediction.ablate = {{0, 0}};
    QVERIFY(messageOf(ablated).find("cannot switch heads off") != std::string::npos);
    Params tooLong = rungSeven("a b c", "d e f g");
    tooLong.model.maxTokens = 3;
    QVERIFY(messageOf(tooLong).find("the target has 4 tokens") != std::string::npos);
  }

  /// Rung 6 of the same parameters stays a single-text model (the encoder–decoder is rung 7 alone).
  void rungSixIsOneText() {
    Params p = rungSeven("the cat", "le chat");
    p.model.mode = Mode::Block;
    const PipelineResult r = runPipeline(p);
    QVERIFY(!r.encdec);
    QCOMPARE(r.trace.tokens, (std::vector<std::string>{"the", "cat"}));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestBuiltinEncDecRun)
#include "test_builtin_encdec_run.moc"
