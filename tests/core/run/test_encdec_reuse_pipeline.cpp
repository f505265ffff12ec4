// The window's encoder–decoder run reuses its last result (issue 33): an edit of the target alone takes the encoder
// from the last run (its Trace's K and V are the same matrices, shared) and the decoder's rows before the first changed
// target token; an edited source, another model or another intervention is run afresh. Either way the result equals
// a fresh run of the same texts — every map of the encoder, the decoder and cross-attention, every block output, the
// stacks' outputs and the logits — on builtin:reverse and on a Marian checkpoint with its SentencePiece files.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include "core/run/encdec_run.h"
#include "core/run/model_factory.h"
#include "tests/encdec_trace_compare.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

/// Same bound as tests/core/checkpoint/test_encdec_reuse.cpp: rows made by products of fewer rows round differently
/// (a few float ulps, 3e-6 at worst there).
constexpr double kTolerance = 1e-5;

using ResultPtr = std::shared_ptr<const PipelineResult>;

ResultPtr run(const Params& p, const std::shared_ptr<const Model>& model, ResultPtr previous = nullptr) {
  return std::make_shared<const PipelineResult>(runPipeline(p, model, {}, std::move(previous)));
}

/// Everything `got` holds against `want` (both decoder sides).
int compareRuns(const PipelineResult& got, const PipelineResult& want) {
  int bad =
      test::compareStackTraces(got.encdec->encoderSide->trace, want.encdec->encoderSide->trace, kTolerance, "encoder");
  bad += test::compareStackTraces(got.trace, want.trace, kTolerance, "decoder");
  bad += test::compareCrossAndOutputs(*got.encdec->trace, *want.encdec->trace, kTolerance);
  if (got.encdec->encoderSide->trace.tokens != want.encdec->encoderSide->trace.tokens ||
      got.trace.tokens != want.trace.tokens)
    bad += 1, qWarning("token labels differ");
  return bad;
}

const SharedMat& firstEncoderKeys(const PipelineResult& r) {
  return r.encdec->encoderSide->trace.layers[0].heads[0].keys;
}

}  // namespace

class TestEncDecReusePipeline : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;

 private slots:
  void targetEditReusesTheEncoder_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("grown");    // the target with words appended
    QTest::addColumn<QString>("changed");  // the grown target with its second word changed
    QTest::addColumn<QString>("source2");  // an edited source
    QTest::newRow("builtin:reverse") << "builtin:reverse"
                                     << "a b c d e"
                                     << "e d"
                                     << "e d c b"
                                     << "e a c b"
                                     << "a b c d f";
    QTest::newRow("marian") << "marian"
                            << "the attention head looks back"
                            << "back looks"
                            << "back looks head attention"
                            << "back the head attention"
                            << "the attention head looks forward";
  }

  void targetEditReusesTheEncoder() {
    QFETCH(QString, model);
    QFETCH(QString, source);
    QFETCH(QString, target);
    QFETCH(QString, grown);
    QFETCH(QString, changed);
    QFETCH(QString, source2);
    Params p;
    p.modelDir = model.toStdString();
    if (model == "marian") {  // the tiny checkpoint with its tokenizer files beside it
      const QString dir = tmp_.path() + "/marian";
      QDir().mkpath(dir);
      const QString weights = QString(ATTNLAB_TEST_DATA) + "/reference/encdec/marian-spm";
      for (const char* f : {"config.json", "model.safetensors"}) QFile::copy(weights + "/" + f, dir + "/" + f);
      const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/marian";
      for (const QString& f : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + f, dir + "/" + f);
      p.modelDir = dir.toStdString();
    }
    const std::shared_ptr<const Model> m = makeModel(p);
    const auto& encdec = dynamic_cast<const EncDecFolderModel&>(*m);
    p.sentence = source.toStdString();
    p.target = target.toStdString();
    const ResultPtr first = run(p, m);

    // The target grows: the encoder is the last run's (the same K matrices), the decoder's earlier rows too.
    p.target = grown.toStdString();
    const TokenizedText src = encdec.tokenizeSource(p.sentence), tgt = encdec.tokenizeTarget(p.target);
    const EncDecReuse plan = encDecReuse(first.get(), encdec, src, tgt, {});
    QVERIFY(plan.encoder == &first->encdec->encoderSide->trace);
    QCOMPARE(plan.decoderRows, static_cast<int>(first->encdec->target.ids.size()));
    QVERIFY(plan.decoderRows >= 2);
    const ResultPtr second = run(p, m, first);
    QVERIFY(firstEncoderKeys(*second) == firstEncoderKeys(*first));
    QVERIFY(second->encdec->trace->cross[0].heads[0].keys == first->encdec->trace->cross[0].heads[0].keys);
    QCOMPARE(compareRuns(*second, *run(p, m)), 0);

    // A word in the middle of the target changes: the encoder still, the rows before that word.
    p.target = changed.toStdString();
    const TokenizedText tgt3 = encdec.tokenizeTarget(p.target);
    std::size_t common = 0;
    while (tgt3.ids[common] == tgt.ids[common]) ++common;
    QVERIFY(common >= 1 && common + 1 < tgt3.ids.size());
    QCOMPARE(encDecReuse(second.get(), encdec, src, tgt3, {}).decoderRows, static_cast<int>(common));
    const ResultPtr third = run(p, m, second);
    QVERIFY(firstEncoderKeys(*third) == firstEncoderKeys(*first));
    QCOMPARE(compareRuns(*third, *run(p, m)), 0);

    // Another ablation (the one comparison, encDecReuse): of the encoder, nothing is reused; of the decoder's self- or
    // cross-attention, the encoder is (it reads the source alone) but none of the decoder's rows.
    EncDecAblation encoderOff, decoderOff, crossOff;
    encoderOff.encoder.ablate = decoderOff.decoder.ablate = crossOff.cross.ablate = {HeadRef{0, 0}};
    QVERIFY(encDecReuse(third.get(), encdec, src, tgt3, encoderOff).encoder == nullptr);
    QCOMPARE(encDecReuse(third.get(), encdec, src, tgt3, encoderOff).decoderRows, 0);
    for (const EncDecAblation& a : {decoderOff, crossOff}) {
      const EncDecReuse plan2 = encDecReuse(third.get(), encdec, src, tgt3, a);
      QVERIFY(plan2.encoder == &third->encdec->encoderSide->trace);
      QCOMPARE(plan2.decoderRows, 0);
    }
    // Through the pipeline: a cross head switched off after a plain run equals a fresh ablated run.
    Params ablatedParams = p;
    ablatedParams.prediction.ablateCross = {HeadRef{0, 0}};
    const ResultPtr crossAblated = run(ablatedParams, m, third);
    QVERIFY(firstEncoderKeys(*crossAblated) == firstEncoderKeys(*first));
    QCOMPARE(compareRuns(*crossAblated, *run(ablatedParams, m)), 0);
    QVERIFY(compareRuns(*crossAblated, *third) != 0);  // the ablation changed the run

    // An edited source: the encoder runs again (new K matrices), and the result is a fresh run's.
    p.sentence = source2.toStdString();
    const TokenizedText src2 = encdec.tokenizeSource(p.sentence);
    QVERIFY(src2.ids != src.ids);
    const EncDecReuse none = encDecReuse(third.get(), encdec, src2, tgt3, {});
    QVERIFY(none.encoder == nullptr && none.cross == nullptr && none.decoderRows == 0);
    const ResultPtr fourth = run(p, m, third);
    QVERIFY(firstEncoderKeys(*fourth) != firstEncoderKeys(*third));
    QCOMPARE(compareRuns(*fourth, *run(p, m)), 0);

    // The same texts with another model object (the window reopened the folder): run afresh.
    const std::shared_ptr<const Model> reopened = makeModel(p);
    const ResultPtr fifth = run(p, reopened, fourth);
    QVERIFY(firstEncoderKeys(*fifth) != firstEncoderKeys(*fourth));
    QCOMPARE(compareRuns(*fifth, *fourth), 0);
  }

  void cleanupTestCase() { qInfo("worst relative error, reused vs fresh: %.3g", test::worstRelativeError()); }
};

ATTNLAB_TEST_GUILESS_MAIN(TestEncDecReusePipeline)
#include "test_encdec_reuse_pipeline.moc"
