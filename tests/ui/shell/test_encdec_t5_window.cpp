// T5 in the window (issue 33), driven as a user would (offscreen): tests/reference/encdec/t5-spm (a tiny T5 v1.1:
// gated-GELU, untied lm_head, relative position bias, vocab_size 504) with tests/reference/tokenizers/spm's t5like
// SentencePiece files beside it (spiece.model, tokenizer.json). The tokenizer gives the float64 reference's source ids;
// source and target typed → the cross view's maps are EncDecModel::forward's; Translate writes the float64
// reference's greedy loop (make_encdec_reference.py) as text; the Prediction view's bars are softmax of forward()'s
// logits; the model card names T5's relative position bias and counts the tensors by hand; a cross head switched off
// in the window gives the core's ablated forward. Expected numbers come from the core library run directly or from
// the reference files, never from the window's own code. The Logit attribution view on T5's decoder: its map is
// decoderLogitAttribution of the core's forward (layers × [self heads | cross heads | FF]), the line under it adds
// up to the logit, Ctrl+click on a cross cell switches that cross head off; Marian's decoder keeps its message.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>
#include <numeric>

#include "core/base/json_file.h"
#include "core/checkpoint/encdec_attribution.h"
#include "core/checkpoint/encdec_folder.h"
#include "tests/encdec_window.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/param_panel.h"
#include "ui/shell/sentence_editor.h"
#include "ui/shell/target_bar.h"
#include "ui/views/attention/cross_attention_view.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/prediction/attribution_view.h"
#include "ui/views/prediction/prediction_view.h"

using namespace attnlab;
using namespace attnlab::ui;
using namespace attnlab::test;

namespace {

const std::string kSource = "the attention head looks back at earlier tokens";  // the reference's source text
const std::string kTarget = "the head looks back";

nlohmann::json reference() {
  return readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/t5-spm/reference.json");
}

float maxDiff(const Mat& a, const Mat& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  return a.size() ? (a - b).cwiseAbs().maxCoeff() : 0.f;
}

/// The decoder's input for `target`: the start token, then the target tokenizer's ids (no eos: teacher forcing).
std::vector<int> decoderIds(const EncDecFolder& f, const std::string& target) {
  std::vector<int> ids = {f.model->config().decoderStartId};
  for (int id : f.target->encode(target, false).ids) ids.push_back(id);
  return ids;
}

VecD softmax(const VecD& logits) {
  const VecD e = (logits.array() - logits.maxCoeff()).exp();
  return e / e.sum();
}

}  // namespace

class TestEncDecT5Window : public QObject {
  Q_OBJECT

  static bool settled(MainWindow& w, const std::string& target) {
    const ResultPtr r = w.controller()->lastResult();
    return r && encDecRunOf(*r) && !w.controller()->busy() && !w.targetBar()->translating() &&
           r->params.target == target;
  }
  /// Opens `dir` with kSource, types kTarget and shows `view` on the decoder; false if the run did not come.
  static bool openOnTheDecoder(MainWindow& w, const QString& dir, const std::string& view) {
    w.show();
    if (!openEncDecAndWait(w, dir, kSource)) return false;
    Params p = w.controller()->params();
    p.target = kTarget;
    p.selection.stack = "decoder";
    p.selection.view = view;
    w.applyParams(p);
    return QTest::qWaitFor([&w] { return settled(w, kTarget); }, 20000);
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  /// Both tokenizer files give the reference's source ids (t5like's pieces and </s>), and the folder opens with the
  /// tokenizer's ids under the checkpoint's 504: spiece.model's 400 pieces and T5's 100 <extra_id_N>, or
  /// tokenizer.json's 400 and the 3 it lists.
  void tokenizerGivesTheReferenceIds() {
    QTemporaryDir tmp;
    const std::vector<int> want = reference()["source_ids"].get<std::vector<int>>();
    for (bool spieceOnly : {false, true}) {
      const EncDecFolder f =
          openEncDecFolder(makeT5Folder(tmp, spieceOnly ? "spiece" : "t5", spieceOnly).toStdString());
      QCOMPARE(f.source->encode(kSource, true).ids, want);
      QCOMPARE(f.model->config().vocabSize, 504);
      QCOMPARE(f.target->vocabSize(), spieceOnly ? 500 : 403);
    }
  }

  /// Source and target typed: the cross view draws forward()'s cross-attention of every layer and head,
  /// [n_tgt × n_src]; the mean over all heads is the mean of those maps. Screenshot at 1280×720 when asked.
  void crossViewIsTheForward() {
    QTemporaryDir tmp;
    const QString dir = makeT5Folder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::vector<int> src = f.source->encode(kSource, true).ids, tgt = decoderIds(f, kTarget);
    const EncDecTrace ref = f.model->forward(src, tgt);
    QVERIFY(src.size() != tgt.size());  // a non-square map: rows and columns cannot be swapped unnoticed

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, "the"));  // the rest of the source typed, as a user would
    w.sentenceEditor()->setFocus();
    w.sentenceEditor()->moveCursor(QTextCursor::End);
    QTest::keyClicks(w.sentenceEditor(), QString::fromStdString(kSource.substr(3)));
    w.targetBar()->editor()->setFocus();
    QTest::keyClicks(w.targetBar()->editor(), QString::fromStdString(kTarget));
    QTRY_VERIFY_WITH_TIMEOUT(settled(w, kTarget) && w.controller()->lastResult()->params.sentence == kSource, 20000);
    QCOMPARE(encDecRunOf(*w.controller()->lastResult())->source.ids, src);
    QCOMPARE(encDecRunOf(*w.controller()->lastResult())->target.ids, tgt);

    auto* view = static_cast<CrossAttentionView*>(w.view("cross"));
    Params p = w.controller()->params();
    p.selection.view = "cross";
    const int layers = static_cast<int>(ref.cross.size()), heads = static_cast<int>(ref.cross[0].heads.size());
    QCOMPARE(layers, 2);
    QCOMPARE(heads, 4);
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < heads; ++h) {
        p.selection.layer = l;
        p.selection.head = h;
        w.applyParams(p);
        QTRY_VERIFY(view->plot()->title().contains(QString("layer %1 · head %2").arg(l).arg(h)));
        QCOMPARE(view->plot()->rows(), static_cast<int>(tgt.size()));
        QCOMPARE(view->plot()->cols(), static_cast<int>(src.size()));
        QVERIFY2(maxDiff(view->plot()->matrix(), ref.cross[l].heads[h].attention) < 1e-6f,
                 qPrintable(QString("layer %1 head %2").arg(l).arg(h)));
      }
    view->averageChoice()->setCurrentIndex(2);  // the mean over every layer's heads
    Mat all = Mat::Zero(static_cast<Eigen::Index>(tgt.size()), static_cast<Eigen::Index>(src.size()));
    for (const CrossLayerTrace& c : ref.cross)
      for (const HeadTrace& h : c.heads) all += h.attention;
    all /= static_cast<float>(layers * heads);
    QVERIFY(maxDiff(view->plot()->matrix(), all) < 1e-6f);
    view->averageChoice()->setCurrentIndex(0);
    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty()) {
      w.resize(1280, 720);
      QTest::qWait(200);
      w.grab().save(shots + "/t5_cross.png");
    }
  }

  /// Translate writes the float64 reference's greedy loop (its first 2·n_src + 16 tokens, Translate's budget; the
  /// tiny model never says </s> within the reference's 40) as text; EncDecModel::generateGreedy agrees; the decoder
  /// then reads the text's own tokens.
  void translateIsTheReferenceGreedyLoop() {
    QTemporaryDir tmp;
    const QString dir = makeT5Folder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const nlohmann::json ref = reference();
    const std::vector<int> src = f.source->encode(kSource, true).ids;
    const std::vector<int> loop = ref["greedy"]["tokens"].get<std::vector<int>>();
    const std::size_t budget = 2 * src.size() + 16;
    QVERIFY(loop.size() >= budget);
    QVERIFY(std::find(loop.begin(), loop.begin() + static_cast<long>(budget), f.model->config().eosId) ==
            loop.begin() + static_cast<long>(budget));
    const std::vector<int> first(loop.begin(), loop.begin() + static_cast<long>(budget));
    QCOMPARE(f.model->generateGreedy(src, static_cast<int>(budget)), first);
    const std::string expected = piecesAsText(*f.target, first, f.model->config().eosId);
    QVERIFY(!expected.empty());

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, kSource));
    QTest::mouseClick(w.targetBar()->translateButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!w.targetBar()->editor()->text().isEmpty(), 20000);
    QCOMPARE(w.targetBar()->editor()->text().toStdString(), expected);
    QTRY_VERIFY_WITH_TIMEOUT(settled(w, expected), 20000);
    QCOMPARE(w.controller()->lastResult()->run->text.ids, decoderIds(f, expected));
  }

  /// The Prediction view on the decoder: its bars are the kTop largest logits of forward()'s last target row and
  /// their softmax probabilities (in double), most probable first, named by their pieces.
  void predictionBarsAreTheSoftmax() {
    QTemporaryDir tmp;
    const QString dir = makeT5Folder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::vector<int> src = f.source->encode(kSource, true).ids, tgt = decoderIds(f, kTarget);
    const VecD logits = f.model->forward(src, tgt).logits.bottomRows(1).transpose().cast<double>();
    const VecD prob = softmax(logits);
    std::vector<int> order(static_cast<std::size_t>(logits.size()));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits(a) > logits(b); });

    MainWindow w(false);
    QVERIFY(openOnTheDecoder(w, dir, "prediction"));
    auto* view = static_cast<PredictionView*>(w.view("prediction"));
    view->waitForAnalyses();
    const ViewNumbers n = view->numbers(*w.controller()->lastResult());
    const LabelledMatrix* top = nullptr;
    for (const LabelledMatrix& m : n.matrices)
      if (m.name == "prediction") top = &m;
    QVERIFY(top);
    QCOMPARE(top->values.rows(), Eigen::Index(PredictionView::kTop));
    for (Eigen::Index i = 0; i < top->values.rows(); ++i) {
      const int id = order[static_cast<std::size_t>(i)];
      QVERIFY(std::abs(top->values(i, 0) - logits(id)) <= 1e-6 * (1 + std::abs(logits(id))));
      QVERIFY(std::abs(top->values(i, 1) - prob(id)) <= 1e-6);
      // Named by its piece ("▁52" shown as "52"): each of the top ids is one of the tokenizer's pieces.
      const std::string piece = f.target->pieceOf(id), word = piece.substr(piece.rfind("\xE2\x96\x81", 0) == 0 ? 3 : 0);
      QVERIFY2(!word.empty() && top->rowLabels[std::size_t(i)].find(word) != std::string::npos,
               (top->rowLabels[std::size_t(i)] + " vs " + piece).c_str());
    }
    qInfo("t5-spm after \"%s\": top %s p %.6f", kTarget.c_str(), top->rowLabels[0].c_str(), top->values(0, 1));
  }

  /// The model card: T5's family, relative position bias (8 buckets up to distance 20, no table), 2 + 2 layers of 4
  /// heads, and its parameters counted by hand from the config's sizes.
  void cardNamesTheRelativeBias() {
    QTemporaryDir tmp;
    const QString dir = makeT5Folder(tmp);
    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, kSource));
    auto* panel = w.paramPanel();
    const auto value = [&](const char* name) { return panel->findChild<QLabel*>(name)->text(); };
    QTRY_COMPARE(value("cardLayers"), QString("2 encoder + 2 decoder"));
    QVERIFY2(value("cardFamily").startsWith("t5 · encoder–decoder"), qPrintable(value("cardFamily")));
    QVERIFY2(value("cardPositions").contains("relative bias, 8 buckets up to distance 20"),
             qPrintable(value("cardPositions")));
    QCOMPARE(value("cardWidths"), QString("d<sub>model</sub> 16 · d<sub>head</sub> 4 · MLP 24"));
    // shared and lm_head [504, 16]; per stack relative_attention_bias [8, 4] and final_layer_norm 16; an encoder block
    // q, k, v, o [16, 16], wi_0, wi_1 [24, 16], wo [16, 24] and two norms; a decoder block also EncDecAttention and
    // its norm.
    const long long d = 16, F = 24, attention = 4 * d * d, ffn = 3 * F * d;
    const long long params =
        2 * 504 * d + 2 * (8 * 4 + d) + 2 * (attention + d + ffn + d) + 2 * (2 * (attention + d) + ffn + d);
    QCOMPARE(params, 27136LL);
    QCOMPARE(value("cardParameters"), QString("27,136"));
  }

  /// A cross head switched off (zero) in the window: the run's logits and cross-attention outputs are
  /// forward(ablation)'s, not the plain pass's, and the Prediction view's ablation row gives both probabilities of
  /// the plain top token.
  void ablatingACrossHeadIsTheCoresAblatedForward() {
    QTemporaryDir tmp;
    const QString dir = makeT5Folder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::vector<int> src = f.source->encode(kSource, true).ids, tgt = decoderIds(f, kTarget);
    EncDecAblation ab;
    ab.cross.mode = AblationMode::Zero;
    ab.cross.ablate = {HeadRef{1, 2}};
    const EncDecTrace plain = f.model->forward(src, tgt), ablated = f.model->forward(src, tgt, true, ab);
    QVERIFY(maxDiff(plain.logits, ablated.logits) > 1e-3f);  // the head matters here

    MainWindow w(false);
    QVERIFY(openOnTheDecoder(w, dir, "prediction"));
    Params p = w.controller()->params();
    p.prediction.ablateCross = {HeadRef{1, 2}};
    p.prediction.ablationMode = AblationMode::Zero;
    w.applyParams(p);
    QTRY_VERIFY_WITH_TIMEOUT(settled(w, kTarget) && !encDecRunOf(*w.controller()->lastResult())->ablation.empty(),
                             20000);
    const EncDecTrace& shown = *encDecRunOf(*w.controller()->lastResult())->trace;
    QVERIFY(maxDiff(shown.logits, ablated.logits) <= 1e-5f * (1 + ablated.logits.cwiseAbs().maxCoeff()));
    for (std::size_t l = 0; l < ablated.cross.size(); ++l)
      QVERIFY(maxDiff(shown.cross[l].attentionOut, ablated.cross[l].attentionOut) < 1e-5f);

    auto* view = static_cast<PredictionView*>(w.view("prediction"));
    view->waitForAnalyses();
    const ViewNumbers n = view->numbers(*w.controller()->lastResult());
    const LabelledMatrix* row = nullptr;
    for (const LabelledMatrix& m : n.matrices)
      if (m.name == "ablation") row = &m;
    QVERIFY(row);
    const int target = static_cast<int>(row->values(0, 0));
    const VecD pPlain = softmax(plain.logits.bottomRows(1).transpose().cast<double>());
    const VecD pAblated = softmax(ablated.logits.bottomRows(1).transpose().cast<double>());
    QVERIFY2(std::abs(row->values(0, 1) - pPlain(target)) <= 1e-5,
             qPrintable(QString("%1 vs %2").arg(row->values(0, 1)).arg(pPlain(target))));
    QVERIFY2(std::abs(row->values(0, 2) - pAblated(target)) <= 1e-5,
             qPrintable(QString("%1 vs %2").arg(row->values(0, 2)).arg(pAblated(target))));
    qInfo("t5-spm cross 1.2 off: p(t%d) %.6f → %.6f", target, pPlain(target), pAblated(target));
  }

  /// The Logit attribution view on T5's decoder: the map is decoderLogitAttribution(forward) at the last target
  /// position for the prediction, then for a named target versus another; the line under it states the sum; Ctrl+click
  /// on a cross-attention cell switches that head off (prediction.ablate_cross) and the map becomes the ablated run's,
  /// the head's cell 0. Screenshot at 1280×720 when asked. Marian's decoder (post-LN) gets the message instead.
  void attributionOnTheDecoder() {
    QTemporaryDir tmp;
    const QString dir = makeT5Folder(tmp);
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::vector<int> src = f.source->encode(kSource, true).ids, tgt = decoderIds(f, kTarget);
    const EncDecTrace ref = f.model->forward(src, tgt);
    const int p = static_cast<int>(tgt.size()) - 1, heads = f.model->config().decoderHeads;
    Eigen::Index best = 0;
    ref.logits.row(p).maxCoeff(&best);
    const DecoderAttribution want = decoderLogitAttribution(*f.model, ref, p, static_cast<int>(best));
    const auto matrixOf = [heads](const DecoderAttribution& a) {
      MatD m(a.self.rows(), 2 * heads + 1);
      m << a.self, a.cross, a.ff;
      return m;
    };

    MainWindow w(false);
    QVERIFY(openOnTheDecoder(w, dir, "attribution"));
    auto* view = static_cast<AttributionView*>(w.view("attribution"));
    MatrixPlot* plot = view->findChild<MatrixPlot*>();
    QTRY_VERIFY_WITH_TIMEOUT(plot->isVisible() && plot->cols() == 2 * heads + 1, 20000);
    QCOMPARE(plot->rows(), f.model->config().decoderLayers);
    QVERIFY((plot->matrix().cast<double>() - matrixOf(want)).cwiseAbs().maxCoeff() < 1e-5);
    QVERIFY2(plot->title().contains("decoder") && plot->title().contains(QString("position %1").arg(p)),
             qPrintable(plot->title()));
    QVERIFY2(view->sumText().contains(QString::number(want.logit, 'f', 3)), qPrintable(view->sumText()));
    QVERIFY(view->sumText().contains(QString::number(want.parts(), 'f', 3)));
    QVERIFY(std::abs(want.parts() - want.logit) <= 1e-5 * std::max(1.0, std::abs(want.logit)));
    const ViewNumbers n = view->numbers(*w.controller()->lastResult());
    QCOMPARE(n.matrices.size(), std::size_t(1));
    QCOMPARE(n.matrices[0].colLabels[std::size_t(heads)], std::string("cross H0"));
    QVERIFY((n.matrices[0].values - matrixOf(want)).cwiseAbs().maxCoeff() < 1e-5);
    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty()) {
      w.resize(1280, 720);
      QTest::qWait(200);
      w.grab().save(shots + "/t5_attribution.png");
    }

    // A named target versus another: logit(target) − logit(versus).
    Eigen::Index second = 0;
    Vec others = ref.logits.row(p).transpose();
    others(best) = -INFINITY;
    others.maxCoeff(&second);
    Params q = w.controller()->params();
    q.prediction.target = std::to_string(second);
    q.prediction.versus = std::to_string(best);
    w.applyParams(q);
    const DecoderAttribution diff =
        decoderLogitAttribution(*f.model, ref, p, static_cast<int>(second), static_cast<int>(best));
    QTRY_VERIFY_WITH_TIMEOUT((plot->matrix().cast<double>() - matrixOf(diff)).cwiseAbs().maxCoeff() < 1e-5, 20000);
    QVERIFY(diff.logit < 0);  // the runner-up trails the prediction
    q.prediction.target.clear();
    q.prediction.versus.clear();
    w.applyParams(q);
    QTRY_VERIFY_WITH_TIMEOUT((plot->matrix().cast<double>() - matrixOf(want)).cwiseAbs().maxCoeff() < 1e-5, 20000);

    // Ctrl+click on layer 1's cross head 2: switched off, and the map is the ablated run's.
    emit plot->cellClicked(1, heads + 2, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(!encDecRunOf(*w.controller()->lastResult())->ablation.empty() && settled(w, kTarget),
                             20000);
    QCOMPARE(w.controller()->params().prediction.ablateCross, (std::vector<HeadRef>{HeadRef{1, 2}}));
    EncDecAblation ab;
    ab.cross.ablate = {HeadRef{1, 2}};
    const EncDecTrace off = f.model->forward(src, tgt, true, ab);
    Eigen::Index offBest = 0;
    off.logits.row(p).maxCoeff(&offBest);
    const DecoderAttribution ablated = decoderLogitAttribution(*f.model, off, p, static_cast<int>(offBest));
    QCOMPARE(ablated.cross(1, 2), 0.0);
    QTRY_VERIFY_WITH_TIMEOUT((plot->matrix().cast<double>() - matrixOf(ablated)).cwiseAbs().maxCoeff() < 1e-5, 20000);

    // Marian's decoder: the message, no map.
    QTemporaryDir tmp2;
    QVERIFY(openEncDecAndWait(w, makeMarianFolder(tmp2), kSource));
    Params m = w.controller()->params();
    m.selection.stack = "decoder";
    m.selection.view = "attribution";
    w.applyParams(m);
    // The plot hides while Marian's run is computed, before the message is set: wait for the message itself.
    const auto said = [view] {
      for (QLabel* l : view->findChildren<QLabel*>())
        if (l->isVisible() && l->text().contains("post-LN")) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(said(), 20000);
    QVERIFY(!plot->isVisible());
  }
};

ATTNLAB_TEST_MAIN(TestEncDecT5Window)
#include "test_encdec_t5_window.moc"
