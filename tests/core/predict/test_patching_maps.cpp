// Issue 31's patching maps (core/predict/patching.h) against direct computations with the intervention API:
// a head × position cell is one forward pass of the corrupted text with that head's output copied from the clean run
// at that one position; a heads-only cell the same at every position; a positions-only cell one residual row copied;
// the maps asked for alone equal those of the full map; the runs resumed from the corrupted one, with the patches that
// copy equal values left out, equal one full forward pass per patch (FullForwardModel, nothing left out); patching on
// top of ablations (zero, mean) equals the ablated runs by hand; the warning fires below kMinPatchingSpan and a zero
// span is refused.
#include <QtTest>

#include <memory>

#include "core/base/errors.h"
#include "core/checkpoint/checkpoint.h"
#include "core/model/full_forward_model.h"
#include "core/predict/attribution.h"
#include "core/predict/patching.h"
#include "core/predict/prediction.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::shared_ptr<const Model> open(const std::string& name) {
  return loadCheckpoint(std::string(ATTNLAB_TEST_DATA) + "/reference/" + name);
}

/// The texts differ at two positions (1 and n − 2); the first two tokens of the pair agree only at position 0.
struct Pair {
  TokenizedText clean, corrupt;
  int target = 0, versus = 0;
};

Pair pairFor(const Model& m) {
  Pair p;
  p.clean = m.tokenize(" the cat sat on the mat because the cat was warm and the cat");
  p.corrupt = p.clean;
  const int vocab = m.unembedding()->vocab;
  for (std::size_t i : {std::size_t(1), p.clean.ids.size() - 2}) p.corrupt.ids[i] = (p.corrupt.ids[i] + 11) % vocab;
  p.target = p.clean.ids[1];
  p.versus = p.corrupt.ids[1];
  return p;
}

/// The normalised effect of one patched run, by hand: a full forward pass with `iv`.
double effectByHand(const Model& m, const Pair& p, const Intervention& iv, const PatchingResult& r) {
  const Trace t = m.forward(p.corrupt, {}, iv);
  const double d =
      logitDifference(*m.unembedding(), t.layers.back().residualOut.bottomRows(1).transpose(), p.target, p.versus);
  return (d - r.corruptDiff) / (r.cleanDiff - r.corruptDiff);
}

double maxDiff(const MatD& a, const MatD& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return 1e9;
  return a.size() == 0 ? 0.0 : (a - b).cwiseAbs().maxCoeff();
}

/// Tolerance for effects: a ratio of differences of float logits.
constexpr double kEffect = 1e-3;

PatchingOptions mapOf(PatchMap map) {
  PatchingOptions o;
  o.map = map;
  return o;
}

}  // namespace

class TestPatchingMaps : public QObject {
  Q_OBJECT
 private slots:
  void cellsAreHandPatches_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("gpt2") << "models/gpt2_tiny";
    QTest::newRow("llama") << "decoders/llama-gqa";
  }
  void cellsAreHandPatches() {
    QFETCH(QString, model);
    const auto m = open(model.toStdString());
    const Pair p = pairFor(*m);
    const Trace cleanRun = m->forward(p.clean);
    const PatchingResult all = activationPatching(*m, p.clean, p.corrupt, p.target, p.versus, {}, mapOf(PatchMap::All));
    const PatchingResult heads =
        activationPatching(*m, p.clean, p.corrupt, p.target, p.versus, {}, mapOf(PatchMap::Heads));
    const PatchingResult positions =
        activationPatching(*m, p.clean, p.corrupt, p.target, p.versus, {}, mapOf(PatchMap::Positions));
    const PatchingResult cells =
        activationPatching(*m, p.clean, p.corrupt, p.target, p.versus, {}, mapOf(PatchMap::HeadPositions));
    const int layers = cleanRun.layerCount(), nh = cleanRun.headCount(), n = cleanRun.tokenCount();
    QCOMPARE(all.firstDifference, 1);
    // Each map alone is the full map's part (to float rounding: the runs are stacked in other batches); the others
    // are not made.
    QVERIFY(maxDiff(heads.heads, all.heads) <= kEffect);
    QCOMPARE(heads.resid.size(), Eigen::Index(0));
    QVERIFY(maxDiff(positions.resid, all.resid) <= kEffect);
    QCOMPARE(positions.heads.size(), Eigen::Index(0));
    QCOMPARE(cells.headPositions.rows(), Eigen::Index(layers * nh));
    QCOMPARE(cells.headPositions.cols(), Eigen::Index(n));
    QCOMPARE(cells.heads.size() + cells.resid.size(), Eigen::Index(0));
    Intervention patch;
    patch.source = &cleanRun;
    double worst = 0.0;
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < nh; ++h) {
        Intervention iv = patch;
        iv.patchHeads = {{l, h}};
        worst = std::max(worst, std::abs(heads.heads(l, h) - effectByHand(*m, p, iv, all)));
        for (int i : {0, 1, 4, n - 2, n - 1}) {  // rows before, at and after the differing tokens
          iv.patchPosition = i;
          worst = std::max(worst, std::abs(cells.headPositions(l * nh + h, i) - effectByHand(*m, p, iv, all)));
        }
      }
    for (int l = 0; l <= layers; ++l)
      for (int i : {0, 1, 3, n - 1}) {
        Intervention iv = patch;
        iv.residualLayer = l;
        iv.residualPosition = i;
        worst = std::max(worst, std::abs(positions.resid(l, i) - effectByHand(*m, p, iv, all)));
      }
    QVERIFY2(worst <= kEffect, qPrintable(QString::number(worst)));
    // Position 0 is the same token in both texts: patching it anywhere changes nothing.
    for (int r = 0; r < layers * nh; ++r) QCOMPARE(cells.headPositions(r, 0), 0.0);
    // The embeddings' row of an unchanged token is equal in both runs: not run, exactly 0.
    QCOMPARE(all.resid(0, 2), 0.0);
    QVERIFY(all.skipped > 0);
  }

  void reusedRowsEqualFullRecomputation_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("ablation");  // 0 none, 1 zero, 2 mean
    for (const char* name : {"models/gpt2_tiny", "decoders/llama-gqa", "decoders/qwen2-bias"}) {
      QTest::newRow((std::string(name) + ", plain").c_str()) << name << 0;
      QTest::newRow((std::string(name) + ", zero").c_str()) << name << 1;
      QTest::newRow((std::string(name) + ", mean").c_str()) << name << 2;
    }
  }
  void reusedRowsEqualFullRecomputation() {
    QFETCH(QString, model);
    QFETCH(int, ablation);
    const auto m = open(model.toStdString());
    const FullForwardModel full(*m);
    const Pair p = pairFor(*m);
    for (PatchMap map : {PatchMap::All, PatchMap::HeadPositions}) {
      PatchingOptions fast = mapOf(map), slow = mapOf(map);
      slow.skipUnchanged = false;
      if (ablation > 0) {
        for (PatchingOptions* o : {&fast, &slow}) {
          o->ablation.ablate = {{0, 1}, {1, 0}};
          o->ablation.mode = ablation == 2 ? AblationMode::Mean : AblationMode::Zero;
        }
      }
      const PatchingResult a = activationPatching(*m, p.clean, p.corrupt, p.target, p.versus, {}, fast);
      const PatchingResult b = activationPatching(full, p.clean, p.corrupt, p.target, p.versus, {}, slow);
      QCOMPARE(b.skipped, 0LL);
      QVERIFY(a.skipped > 0);
      QCOMPARE(a.runs + a.skipped, b.runs);
      const double scale = std::max(1.0, 1.0 / std::abs(a.cleanDiff - a.corruptDiff));
      QVERIFY2(maxDiff(a.heads, b.heads) <= 1e-4 * scale, qPrintable(QString::number(maxDiff(a.heads, b.heads))));
      QVERIFY(maxDiff(a.resid, b.resid) <= 1e-4 * scale);
      QVERIFY2(maxDiff(a.headPositions, b.headPositions) <= 1e-4 * scale,
               qPrintable(QString::number(maxDiff(a.headPositions, b.headPositions))));
    }
  }

  // Patching on top of ablations: the clean and corrupted runs are ablated, and a cell is the ablated and patched
  // run by hand.
  void patchesGoOnTopOfAblations() {
    const auto m = open("decoders/llama-gqa");
    const Pair p = pairFor(*m);
    for (AblationMode mode : {AblationMode::Zero, AblationMode::Mean}) {
      Intervention ablation;
      ablation.ablate = {{0, 0}, {1, 2}};
      ablation.mode = mode;
      PatchingOptions o = mapOf(PatchMap::All);
      o.ablation = ablation;
      const PatchingResult r = activationPatching(*m, p.clean, p.corrupt, p.target, p.versus, {}, o);
      const Unembedding& u = *m->unembedding();
      const Trace cleanRun = m->forward(p.clean, {}, ablation), corruptRun = m->forward(p.corrupt, {}, ablation);
      const auto lastDiff = [&](const Trace& t) {
        return logitDifference(u, t.layers.back().residualOut.bottomRows(1).transpose(), p.target, p.versus);
      };
      QVERIFY(std::abs(r.cleanDiff - lastDiff(cleanRun)) <= 1e-5);
      QVERIFY(std::abs(r.corruptDiff - lastDiff(corruptRun)) <= 1e-5);
      const PatchingResult plain = activationPatching(*m, p.clean, p.corrupt, p.target, p.versus);
      QVERIFY(std::abs(plain.cleanDiff - r.cleanDiff) > 1e-4);  // the ablation does change the runs
      Intervention iv = ablation;
      iv.source = &cleanRun;
      iv.patchHeads = {{1, 1}};
      QVERIFY(std::abs(r.heads(1, 1) - effectByHand(*m, p, iv, r)) <= kEffect);
      iv.patchHeads = {{1, 2}};  // an ablated head: the clean run's output is ablated too
      QVERIFY(std::abs(r.heads(1, 2) - effectByHand(*m, p, iv, r)) <= kEffect);
      iv.patchHeads.clear();
      iv.residualLayer = 1;
      iv.residualPosition = p.clean.ids.size() - 2;
      QVERIFY(std::abs(r.resid(1, iv.residualPosition) - effectByHand(*m, p, iv, r)) <= kEffect);
    }
  }

  void warningBelowTheThreshold() {
    const auto m = open("models/gpt2_tiny");
    const Pair p = pairFor(*m);
    const Trace c = m->forward(p.clean), k = m->forward(p.corrupt);
    const Vec delta = rowLogits(*m->unembedding(), c.layers.back().residualOut.bottomRows(1).transpose()) -
                      rowLogits(*m->unembedding(), k.layers.back().residualOut.bottomRows(1).transpose());
    // span(versus) = Δ(target) − Δ(versus): the versus tokens with the smallest and a large |span|.
    int small = -1, large = -1;
    for (int v = 0; v < delta.size(); ++v) {
      if (v == p.target) continue;
      const double span = std::abs(delta(p.target) - delta(v));
      if (span > 0 && (small < 0 || span < std::abs(delta(p.target) - delta(small)))) small = v;
      if (span > 3 * kMinPatchingSpan && large < 0) large = v;
    }
    QVERIFY(small >= 0 && large >= 0);
    QVERIFY(std::abs(delta(p.target) - delta(small)) < kMinPatchingSpan);
    const PatchingResult below =
        activationPatching(*m, p.clean, p.corrupt, p.target, small, {}, mapOf(PatchMap::Heads));
    QVERIFY(std::abs(below.cleanDiff - below.corruptDiff) < kMinPatchingSpan);
    QVERIFY2(QString::fromStdString(below.warning).contains("(below 0.1)"), below.warning.c_str());
    const PatchingResult above =
        activationPatching(*m, p.clean, p.corrupt, p.target, large, {}, mapOf(PatchMap::Heads));
    QVERIFY(std::abs(above.cleanDiff - above.corruptDiff) >= kMinPatchingSpan);
    QVERIFY(above.warning.empty());
    // The same token twice: the span is exactly 0, refused with a message.
    QVERIFY_THROWS_EXCEPTION(InputError, activationPatching(*m, p.clean, p.corrupt, p.target, p.target));
  }

  void mapNamesRoundTrip() {
    for (PatchMap map : {PatchMap::All, PatchMap::Heads, PatchMap::Positions, PatchMap::HeadPositions})
      QVERIFY(parsePatchMap(patchMapName(map), "--map") == map);
    try {
      parsePatchMap("head", "--map");
      QFAIL("no error");
    } catch (const InputError& e) {
      QCOMPARE(std::string(e.what()), std::string("--map must be all, heads, positions or head-position, got 'head'"));
    }
  }
};

ATTNLAB_TEST_MAIN(TestPatchingMaps)
#include "test_patching_maps.moc"
