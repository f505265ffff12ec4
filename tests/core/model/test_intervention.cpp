// Ablation and patching at the two places every model applies them (core/model/intervention.h), on
// hand-made matrices: a zeroed head, a head replaced by its mean over positions, a head and a residual
// row copied from another run, and the messages for heads, positions and lengths that do not exist.
#include <QtTest>

#include "core/base/errors.h"
#include "core/model/intervention.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

/// Two heads of d_head 2 over 3 tokens: concat [3, 4], head 0 in columns 0–1, head 1 in 2–3.
Mat concat3x4() {
  Mat m(3, 4);
  m << 1, 2, 3, 4,  //
      5, 6, 7, 8,   //
      9, 10, 11, 12;
  return m;
}

}  // namespace

class TestIntervention : public QObject {
  Q_OBJECT
 private slots:
  void zeroAblationClearsOnlyThatHead() {
    Mat c = concat3x4();
    Intervention iv;
    iv.ablate = {{0, 1}};
    QCOMPARE(interveneOnConcat(iv, 0, 2, 2, c), std::vector<int>{1});
    QCOMPARE(c.col(2).sum(), 0.0f);
    QCOMPARE(c.col(3).sum(), 0.0f);
    QCOMPARE(c(2, 1), 10.0f);  // head 0 untouched
    Mat other = concat3x4();
    QVERIFY(interveneOnConcat(iv, 1, 2, 2, other).empty());  // another layer: nothing happens
    QCOMPARE(other, concat3x4());
  }

  void firstDifferingLayerFindsWhereTwoAblationsPart() {
    Intervention a, b;
    QCOMPARE(firstDifferingLayer(a, b, 12), 12);  // the same: every layer may be reused
    a.ablate = {{5, 1}, {9, 0}};
    b.ablate = {{9, 0}, {5, 1}};
    QCOMPARE(firstDifferingLayer(a, b, 12), 12);  // order does not matter
    b.ablate.push_back({7, 3});
    QCOMPARE(firstDifferingLayer(a, b, 12), 7);
    QCOMPARE(firstDifferingLayer(b, a, 12), 7);
    b.ablate = {{9, 0}, {5, 1}};
    b.mode = AblationMode::Mean;  // every ablated head changes with the mode
    QCOMPARE(firstDifferingLayer(a, b, 12), 5);
    b.mode = AblationMode::Zero;
    b.residualLayer = 3;
    b.residualPosition = 0;
    QCOMPARE(firstDifferingLayer(a, b, 12), 0);  // patches are never reused
  }

  void meanAblationUsesTheMeanOverPositions() {
    Mat c = concat3x4();
    Intervention iv;
    iv.ablate = {{0, 0}};
    iv.mode = AblationMode::Mean;
    interveneOnConcat(iv, 0, 2, 2, c);
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(c(i, 0), 5.0f);  // (1 + 5 + 9) / 3
      QCOMPARE(c(i, 1), 6.0f);  // (2 + 6 + 10) / 3
    }
    QCOMPARE(c(0, 2), 3.0f);
  }

  void patchesCopyFromTheSourceRun() {
    Trace clean;
    clean.tokens = {"a", "b", "c"};
    LayerTrace l;
    l.heads.resize(2);
    l.concat = Mat::Zero(3, 4);
    l.concat.leftCols(2).setConstant(-1.0f);       // head 0's output
    clean.embeddings = Mat::Constant(3, 4, 7.0f);  // the stream entering layer 0
    l.residualOut = Mat::Constant(3, 4, 9.0f);
    clean.layers.push_back(l);
    Intervention iv;
    iv.source = &clean;
    iv.patchHeads = {{0, 0}};
    Mat c = concat3x4();
    interveneOnConcat(iv, 0, 2, 2, c);
    QCOMPARE(c.leftCols(2), Mat(Mat::Constant(3, 2, -1.0f)));
    QCOMPARE(c(1, 3), 8.0f);
    iv.patchHeads.clear();
    iv.residualLayer = 0;
    iv.residualPosition = 1;
    Mat stream = Mat::Zero(3, 4);
    interveneOnResidual(iv, 0, stream);
    QCOMPARE(stream.row(1).sum(), 28.0f);  // row 1 from the clean stream entering layer 0
    QCOMPARE(stream.row(0).sum(), 0.0f);
    // The traced form records the patched row where Trace::layerInput reads it: the stream layer 0 read.
    Trace patched;
    patched.embeddings = Mat::Zero(3, 4);
    Mat entering = patched.embeddings;
    interveneOnTracedResidual(iv, 0, patched, entering);
    QCOMPARE(patched.layerInput(0).row(1).sum(), 28.0f);
    QCOMPARE(patched.embeddings, entering);
    iv.residualLayer = 1;  // = the layer count: the stream after the last layer
    stream.setZero();
    interveneOnResidual(iv, 1, stream);
    QCOMPARE(stream.row(1).sum(), 36.0f);
  }

  void badInterventionsAreNamed() {
    Intervention iv;
    iv.ablate = {{2, 0}};
    try {
      checkIntervention(iv, 2, 4, 5);
      QFAIL("accepted a head outside the model");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("ablated head 2.0 does not exist"), e.what());
    }
    Trace shorter;
    shorter.tokens = {"a"};
    Intervention patch;
    patch.source = &shorter;
    patch.patchHeads = {{0, 0}};
    try {
      checkIntervention(patch, 2, 4, 5);
      QFAIL("accepted runs of different lengths");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("same number of tokens (1 and 5)"), e.what());
    }
    Intervention resid;
    Trace same;
    same.tokens = {"a", "b", "c", "d", "e"};
    resid.source = &same;
    resid.residualLayer = 0;
    resid.residualPosition = 5;
    QVERIFY_THROWS_EXCEPTION(InputError, checkIntervention(resid, 2, 4, 5));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestIntervention)
#include "test_intervention.moc"
