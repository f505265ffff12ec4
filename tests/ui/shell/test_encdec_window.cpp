// An encoder–decoder in the window (issue 33), driven as a user would (offscreen): opening the tiny Marian folder
// with its SentencePiece files, the source and target editors, Translate, Next token, the stack the views show, bad
// input. Expected numbers come from the core library run directly (openEncDecFolder, forward, generateGreedy), never
// from the window's own code.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include "core/base/errors.h"
#include "core/checkpoint/encdec_folder.h"
#include "core/train/shipped_models.h"
#include "tests/encdec_window.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/model_opener.h"
#include "ui/shell/param_panel.h"
#include "ui/shell/target_bar.h"
#include "ui/views/attention/cross_attention_view.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/common/encdec_result.h"

using namespace attnlab;
using namespace attnlab::ui;
using namespace attnlab::test;

class TestEncDecWindow : public QObject {
  Q_OBJECT

  MatrixPlot* heatmap(MainWindow& w) { return static_cast<HeatmapView*>(w.view("heatmap"))->plot(); }
  QString status(MainWindow& w) { return w.findChild<QLabel*>("status")->text(); }
  static bool labelContains(QWidget* w, const QString& text) {
    for (QLabel* l : w->findChildren<QLabel*>())
      if (l->text().contains(text)) return true;
    return false;
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  /// The folder opens (the opener refused encoder–decoders by name before), the target bar appears, and the heatmap
  /// shows the encoder's layer 0 head 0 exactly as the core library computes it.
  void opensAndShowsTheEncoder() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp, "marian");
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::string source = "the attention head looks back at earlier tokens";
    const TokenizedText src = f.source->encode(source, true);
    const EncDecTrace ref = f.model->forward(src.ids, {f.model->config().decoderStartId});

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, source));
    QVERIFY(w.targetBar()->isVisible());
    QVERIFY(w.findChildren<QMessageBox*>("modelError").isEmpty());
    QTRY_COMPARE(heatmap(w)->rows(), static_cast<int>(src.ids.size()));
    const Mat& drawn = heatmap(w)->matrix();
    const Mat& expected = ref.encoder.layers[0].heads[0].attention;
    QCOMPARE(drawn.rows(), expected.rows());
    QVERIFY((drawn - expected).cwiseAbs().maxCoeff() < 1e-6f);
    QVERIFY(status(w).contains("encoder"));
    QVERIFY(heatmap(w)->title().contains("· encoder"));
    // A view that cannot apply to a stack says so.
    w.showView("prediction");
    QTRY_VERIFY(labelContains(w.view("prediction"), "the encoder predicts no token"));
    w.showView("heatmap");
    // An empty target is no error: the decoder reads its start token alone, and the editor says what to do.
    QCOMPARE(w.controller()->lastResult()->run->text.ids, std::vector<int>{f.model->config().decoderStartId});
    QVERIFY(w.targetBar()->editor()->placeholderText().contains("Translate"));

    // Back to the built-in model: the bar goes.
    w.modelOpener()->open(QString());
    QTRY_VERIFY(!encdecShown(w) && w.controller()->lastResult()->params.modelDir.empty());
    QVERIFY(!w.targetBar()->isVisible());
  }

  /// Translate fills the target editor with the greedy translation (generateGreedy's ids decoded), and the decoder's
  /// views follow it. (The tiny model's random pieces do not all survive tokenizing their text again: the decoder then
  /// reads the text's own tokens, as it would a typed one.)
  void translateFillsTheTarget() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp, "marian");
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::string source = "the attention head looks back at earlier tokens";
    const int budget = 2 * static_cast<int>(f.source->encode(source, true).ids.size()) + 16;
    const std::vector<int> greedy = f.model->generateGreedy(f.source->encode(source, true).ids, budget);
    const std::string expected = piecesAsText(*f.target, greedy, f.model->config().eosId);
    QVERIFY(!expected.empty());

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, source));
    QTest::mouseClick(w.targetBar()->translateButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!w.targetBar()->editor()->text().isEmpty(), 20000);
    QCOMPARE(w.targetBar()->editor()->text().toStdString(), expected);
    // The run of that target: the decoder's tokens are the start token and the text's tokens.
    QTRY_COMPARE(w.controller()->lastResult()->params.target, expected);
    QTRY_VERIFY(!w.controller()->busy());
    std::vector<int> ids = {f.model->config().decoderStartId};
    for (int id : f.target->encode(expected, false).ids) ids.push_back(id);
    QCOMPARE(w.controller()->lastResult()->run->text.ids, ids);
    // Decoder stack chosen: the heatmap draws the decoder's [n_tgt, n_tgt] map.
    w.targetBar()->stackChoice()->setCurrentIndex(1);
    emit w.targetBar()->stackChoice()->activated(1);
    QTRY_COMPARE(heatmap(w)->rows(), static_cast<int>(ids.size()));
    QVERIFY(status(w).contains("decoder"));
    QVERIFY(heatmap(w)->title().contains("· decoder"));
  }

  /// Next token appends the argmax of the last logits row (forward()'s logits of the target on screen) as text, one
  /// token a press; typing in the target editor re-runs the decoder.
  void nextTokenAndTypingFollow() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp, "marian");
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::string source = "the attention head looks back at earlier tokens";
    const std::vector<int> srcIds = f.source->encode(source, true).ids;
    const int start = f.model->config().decoderStartId;

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, source));
    std::string target;
    for (int step = 0; step < 3; ++step) {
      std::vector<int> ids = {start};
      for (int id : f.target->encode(target, false).ids) ids.push_back(id);
      const EncDecTrace t = f.model->forward(srcIds, ids);
      Eigen::Index id = 0;
      t.logits.row(t.logits.rows() - 1).maxCoeff(&id);
      QVERIFY(id != f.model->config().eosId);
      const std::string piece = piecesAsText(*f.target, {static_cast<int>(id)}, -1);
      target +=
          (target.empty() || f.target->pieceOf(static_cast<int>(id)).rfind("\xE2\x96\x81", 0) != 0 ? "" : " ") + piece;
      QTest::mouseClick(w.targetBar()->nextTokenButton(), Qt::LeftButton);
      QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->busy() && w.controller()->lastResult()->params.target == target, 20000);
      QCOMPARE(w.targetBar()->editor()->text().toStdString(), target);
    }
    // Typing: the target grows by a word and the decoder's tokens follow.
    w.targetBar()->editor()->setFocus();
    w.targetBar()->editor()->end(false);
    QTest::keyClicks(w.targetBar()->editor(), " head");
    const std::string typed = w.targetBar()->editor()->text().toStdString();
    QTRY_COMPARE(w.controller()->lastResult()->params.target, typed);
    std::vector<int> ids = {start};
    for (int id : f.target->encode(typed, false).ids) ids.push_back(id);
    QCOMPARE(w.controller()->lastResult()->run->text.ids, ids);
  }

  /// The cross-attention view: its heatmap's cells are forward()'s cross attention of the selected layer/head
  /// [n_tgt × n_src] with the target and source tokens on the axes; the means over heads and over layers are the
  /// means of those maps; the alignment draws one line per weight ≥ its threshold; another model gets a note.
  void crossAttentionView() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp, "marian");
    const EncDecFolder f = openEncDecFolder(dir.toStdString());
    const std::string source = "the attention head looks back at earlier tokens", target = "the head";
    const std::vector<int> src = f.source->encode(source, true).ids;
    std::vector<int> tgt = {f.model->config().decoderStartId};
    for (int id : f.target->encode(target, false).ids) tgt.push_back(id);
    const EncDecTrace ref = f.model->forward(src, tgt);

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, source));
    Params p = w.controller()->params();
    p.target = target;
    p.selection.layer = 1;
    p.selection.head = 1;
    p.selection.view = "cross";
    w.applyParams(p);
    auto* view = static_cast<CrossAttentionView*>(w.view("cross"));
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.target == target);
    QTRY_COMPARE(view->plot()->rows(), static_cast<int>(tgt.size()));
    QCOMPARE(view->plot()->cols(), static_cast<int>(src.size()));
    const Mat& expected = ref.cross[1].heads[1].attention;
    QVERIFY((view->plot()->matrix() - expected).cwiseAbs().maxCoeff() < 1e-6f);
    QVERIFY(view->plot()->title().contains("layer 1 · head 1"));
    // The encoder stack chosen for the other views changes nothing here.
    p.selection.stack = "encoder";
    w.applyParams(p);
    QTRY_COMPARE(w.controller()->lastResult()->params.selection.stack, std::string("encoder"));
    QVERIFY((view->plot()->matrix() - expected).cwiseAbs().maxCoeff() < 1e-6f);
    // Means: over the layer's 2 heads, over the 2 × 2 heads of both layers.
    view->averageChoice()->setCurrentIndex(1);
    Mat layerMean = (ref.cross[1].heads[0].attention + ref.cross[1].heads[1].attention) / 2.0f;
    QVERIFY((view->plot()->matrix() - layerMean).cwiseAbs().maxCoeff() < 1e-6f);
    view->averageChoice()->setCurrentIndex(2);
    Mat all = Mat::Zero(expected.rows(), expected.cols());
    for (const CrossLayerTrace& c : ref.cross)
      for (const HeadTrace& h : c.heads) all += h.attention;
    all /= 4.0f;
    QVERIFY((view->plot()->matrix() - all).cwiseAbs().maxCoeff() < 1e-6f);
    // Alignment lines: one per weight at or above the threshold.
    view->drawingChoice()->setCurrentIndex(1);
    view->alignment()->repaint();
    QCOMPARE(view->alignment()->linesDrawn(),
             static_cast<int>((all.array() >= static_cast<float>(AlignmentCanvas::kMinWeight)).count()));
    QVERIFY(view->alignment()->linesDrawn() > 0);
    // The built-in model: a note, no map.
    w.modelOpener()->open(QString());
    QTRY_VERIFY(!encdecShown(w) && w.controller()->lastResult()->params.modelDir.empty());
    QTRY_VERIFY(view->note()->isVisible());
    QVERIFY(view->note()->text().contains("encoder–decoders"));
  }

  /// The shipped builtin:reverse opens as an encoder–decoder by its name (and is named so in the status bar): Translate
  /// turns "d c b a" into "a b c d", and the cross view's mean map over the heads is forward()'s, with most weight on
  /// the anti-diagonal (each answer token reads the source token it copies).
  void builtinReverseTranslates() {
    const EncDecFolder f = openEncDecFolder(shippedEncDecFolder(kShippedReverseModel));
    const std::vector<int> src = f.source->encode("d c b a", true).ids;  // d c b a </s>
    QCOMPARE(static_cast<int>(src.size()), 5);

    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, QString::fromLatin1(kShippedReverseModel), "d c b a"));
    QVERIFY(w.findChildren<QMessageBox*>("modelError").isEmpty());
    QVERIFY(status(w).contains("builtin:reverse"));
    QTest::mouseClick(w.targetBar()->translateButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!w.targetBar()->editor()->text().isEmpty(), 20000);
    QCOMPARE(w.targetBar()->editor()->text(), QString("a b c d"));
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.target == "a b c d");

    std::vector<int> tgt = {f.model->config().decoderStartId};
    for (int id : f.target->encode("a b c d", false).ids) tgt.push_back(id);
    const EncDecTrace ref = f.model->forward(src, tgt);
    Mat mean = Mat::Zero(ref.cross[0].heads[0].attention.rows(), ref.cross[0].heads[0].attention.cols());
    for (const HeadTrace& h : ref.cross[0].heads) mean += h.attention;
    mean /= static_cast<float>(ref.cross[0].heads.size());

    Params p = w.controller()->params();
    p.selection.view = "cross";
    w.applyParams(p);
    auto* view = static_cast<CrossAttentionView*>(w.view("cross"));
    view->averageChoice()->setCurrentIndex(1);  // the mean over the layer's heads
    QTRY_COMPARE(view->plot()->rows(), 5);
    QCOMPARE(view->plot()->cols(), 5);
    QVERIFY((view->plot()->matrix() - mean).cwiseAbs().maxCoeff() < 1e-6f);
    // Rows 0..3 predict a, b, c, d: row i reads source position 3 − i.
    double antiDiagonal = 0;
    for (int i = 0; i < 4; ++i) antiDiagonal += view->plot()->matrix()(i, 3 - i);
    antiDiagonal /= 4;
    qInfo("builtin:reverse anti-diagonal weight on \"d c b a\": %.3f", antiDiagonal);
    QVERIFY(antiDiagonal > 0.9);
  }

  /// The checkpoint card of builtin:reverse names both stacks (it showed "bart · , causal", vocabulary 0, parameters 0,
  /// "Positions 11 ·"): 1 + 1 layers of 2 heads, d 32, MLP 64, 24 pieces shared, 23,104 parameters (test_model_card
  /// counts its tensors), 11 learned positions.
  void builtinReverseCardShowsBothStacks() {
    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, QString::fromLatin1(kShippedReverseModel), "d c b a"));
    auto* panel = w.paramPanel();
    const auto value = [&](const char* name) { return panel->findChild<QLabel*>(name)->text(); };
    QTRY_COMPARE(value("cardLayers"), QString("1 encoder + 1 decoder"));
    QCOMPARE(value("cardName"), QString("builtin:reverse"));
    QCOMPARE(value("cardFamily"),
             QString("bart · encoder–decoder: bidirectional encoder, causal decoder with cross-attention"));
    QCOMPARE(value("cardHeads"), QString("2 per attention (each with its own keys and values)"));
    QCOMPARE(value("cardWidths"), QString("d<sub>model</sub> 32 · d<sub>head</sub> 16 · MLP 64"));
    QCOMPARE(value("cardVocabulary"), QString("24, shared by source and target"));
    QCOMPARE(value("cardParameters"), QString("23,104"));
    QCOMPARE(value("cardPositions"), QString("11 · learned table (offset 2)"));
    QVERIFY2(!value("cardWeights").startsWith("0 "), qPrintable(value("cardWeights")));
    QVERIFY(value("cardFiles").contains("compiled into the program"));
    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty()) {
      w.resize(1280, 720);
      QTest::qWait(100);
      w.grab().save(shots + "/encdec_card.png");
    }
  }

  /// Bad input: an empty source and invalid UTF-8 get messages naming the text, the last views stay; a folder without
  /// target.spm is refused naming the file, and the previous model stays.
  void badInput() {
    QTemporaryDir tmp;
    const QString dir = makeMarianFolder(tmp, "marian");
    MainWindow w(false);
    w.show();
    QVERIFY(openEncDecAndWait(w, dir, "the attention head"));
    const ResultPtr good = w.controller()->lastResult();
    Params p = w.controller()->params();
    p.sentence = "  ";
    w.applyParams(p);
    QTRY_VERIFY(status(w).contains("source text is empty"));
    QCOMPARE(w.controller()->lastResult(), good);
    // Invalid UTF-8 cannot come from the editors (a QString holds none); the command line's path is the pipeline's.
    p.sentence = "the attention head";
    p.target = "bad \xC3 byte";
    p.modelDir = dir.toStdString();
    try {
      runPipeline(p);
      QFAIL("invalid UTF-8 was run");
    } catch (const InputError& e) {
      QCOMPARE(std::string(e.what()), std::string("the target text is not valid UTF-8 (byte 4)"));
    }
    // Longer than the positions (512): both lengths named.
    std::string longSource;
    for (int i = 0; i < 600; ++i) longSource += "head ";
    p.target.clear();
    p.sentence = longSource;
    w.applyParams(p);
    QTRY_VERIFY(status(w).contains("takes at most 512 positions"));
    QVERIFY(status(w).contains("the source has"));

    const QString broken = makeMarianFolder(tmp, "no-target", "target.spm");
    p.sentence = "the attention head";
    w.applyParams(p);
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.sentence == p.sentence);
    w.modelOpener()->open(broken);
    QTRY_VERIFY_WITH_TIMEOUT(!w.findChildren<QMessageBox*>("modelError").isEmpty(), 20000);
    QVERIFY(w.findChildren<QMessageBox*>("modelError")[0]->text().contains("target.spm"));
    QTRY_COMPARE(QString::fromStdString(w.controller()->params().modelDir), dir);
  }
};

ATTNLAB_TEST_MAIN(TestEncDecWindow)
#include "test_encdec_window.moc"
