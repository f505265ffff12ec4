// The cross stack as a choice of the single-text views (issue 33: "the model view's grid for the encoder, the decoder
// and the cross stack"): with selection.stack "cross" the model grid, heatmap, Q/K/V, head outputs, spectrum and head
// view draw the decoder's cross-attention, target rows × source columns, on builtin:reverse (BART layout) and the tiny
// Marian checkpoint with its SentencePiece files. Expected numbers come from the core library run directly
// (openEncDecFolder, EncDecModel::forward) and Eigen's SVD, never from the views' own code. The window's status line
// says that the other views read one stack; `attnlab export` refuses them.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include "core/checkpoint/encdec_folder.h"
#include "core/run/model_factory.h"
#include "core/session/params_json.h"
#include "core/train/shipped_models.h"
#include "tests/encdec_window.h"
#include "tests/harness/test_registry.h"
#include "ui/plots/matrix_plot.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/model_opener.h"
#include "ui/shell/target_bar.h"
#include "ui/shell/view_export.h"
#include "ui/views/attention/cross_attention_view.h"
#include "ui/views/attention/head_view.h"
#include "ui/views/attention/heatmap_view.h"
#include "ui/views/attention/model_grid_view.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/inside_head/matrix_grid_view.h"
#include "ui/views/spectra/spectrum_view.h"

using namespace attnlab;
using namespace attnlab::ui;
using namespace attnlab::test;

namespace {

float maxDiff(const Mat& a, const Mat& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  return a.size() ? (a - b).cwiseAbs().maxCoeff() : 0.f;
}

/// One case: a folder, its two texts, and the reference computed from the folder directly.
struct Case {
  QString dir;
  std::string source, target;
  EncDecFolder folder;
  std::vector<int> src, tgt;
  EncDecTrace ref;
  QStringList sources, targets;  ///< the tokenizers' pieces, "▁" shown as "·"

  Case(const QString& d, std::string s, std::string t)
      : dir(d), source(std::move(s)), target(std::move(t)), folder(openEncDecFolder(d.toStdString())) {
    src = folder.source->encode(source, true).ids;
    tgt = {folder.model->config().decoderStartId};
    for (int id : folder.target->encode(target, false).ids) tgt.push_back(id);
    ref = folder.model->forward(src, tgt);
    for (int id : src) sources << pieceLabel(folder.source->pieceOf(id), "metaspace");
    for (int id : tgt) targets << pieceLabel(folder.target->pieceOf(id), "metaspace");
  }
  Params params(int layer, int head) const {
    Params p;
    p.modelDir = dir.toStdString();
    p.sentence = source;
    p.target = target;
    p.selection.stack = "cross";
    p.selection.layer = layer;
    p.selection.head = head;
    return p;
  }
};

}  // namespace

class TestEncDecCrossStack : public QObject {
  Q_OBJECT

  /// Every cross-drawing view on `c` at every layer/head, against the reference.
  static void checkViews(const Case& c) {
    const auto model = makeModel(c.params(0, 0));
    const int layers = static_cast<int>(c.ref.cross.size()), heads = static_cast<int>(c.ref.cross[0].heads.size());
    QVERIFY(c.src.size() != c.tgt.size());  // a non-square map: rows and columns cannot be swapped unnoticed
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < heads; ++h) {
        const ResultPtr r = shownStack(LiveController::compute(c.params(l, h), model, {}));
        QVERIFY2(r->ok(), qPrintable(r->error));
        QVERIFY(showsCross(*r));
        QCOMPARE(stackTag(*r), QString(" · cross"));
        QCOMPARE(encDecRunOf(*r)->source.ids, c.src);
        QCOMPARE(encDecRunOf(*r)->target.ids, c.tgt);
        const HeadTrace& want = c.ref.cross[l].heads[h];
        const int nt = static_cast<int>(c.tgt.size()), ns = static_cast<int>(c.src.size());

        // The heatmap: target rows × source columns, both token lists on the axes; the hover names both tokens.
        HeatmapView heat;
        heat.resize(640, 480);
        heat.showResult(r);
        QCOMPARE(heat.plot()->rows(), nt);
        QCOMPARE(heat.plot()->cols(), ns);
        QVERIFY(maxDiff(heat.plot()->matrix(), want.attention) < 1e-6f);
        QVERIFY(heat.plot()->title().startsWith("Cross-attention"));
        QVERIFY(heat.plot()->title().contains(QString("decoder layer %1 · head %2").arg(l).arg(h)));
        const int row = nt - 1, col = 0;
        emit heat.plot()->cellHovered(row, col, want.attention(row, col));
        const QString hover = heat.hoverStrip()->text();
        QVERIFY2(hover.contains(QString("target “%1” [%2]").arg(c.targets[row]).arg(row)), qPrintable(hover));
        QVERIFY2(hover.contains(QString("source “%1” [%2]").arg(c.sources[col]).arg(col)), qPrintable(hover));
        QVERIFY(hover.contains(QString::number(want.attention(row, col), 'f', 4)));
        const ViewNumbers hn = heat.numbers(*r);
        QCOMPARE(hn.matrices.size(), std::size_t(1));
        QVERIFY((hn.matrices[0].values - want.attention.cast<double>()).cwiseAbs().maxCoeff() < 1e-6);
        QCOMPARE(hn.matrices[0].rowLabels.size(), std::size_t(nt));
        QCOMPARE(hn.matrices[0].colLabels.size(), std::size_t(ns));

        // Q/K/V: Q from the decoder [n_tgt, d_head], K and V from the encoder [n_src, d_head], scores [n_tgt, n_src].
        QkvView qkv;
        qkv.resize(800, 600);
        qkv.showResult(r);
        QCOMPARE(qkv.plots().size(), std::size_t(4));
        QVERIFY(maxDiff(qkv.plots()[0]->matrix(), want.q) < 1e-6f);
        QVERIFY(maxDiff(qkv.plots()[1]->matrix(), want.k()) < 1e-6f);
        QVERIFY(maxDiff(qkv.plots()[2]->matrix(), want.v()) < 1e-6f);
        QVERIFY(maxDiff(qkv.plots()[3]->matrix(), want.scores) < 1e-6f);
        QCOMPARE(qkv.plots()[0]->rows(), nt);
        QCOMPARE(qkv.plots()[1]->rows(), ns);
        QVERIFY(qkv.plots()[0]->title().contains("from the decoder"));
        QVERIFY(qkv.plots()[1]->title().contains("from the encoder"));

        // Head outputs: A·V of each cross head [n_tgt, d_head] (= attention · V, computed here), the layer's output.
        HeadOutputsView outs;
        outs.resize(800, 600);
        outs.showResult(r);
        QCOMPARE(static_cast<int>(outs.plots().size()), heads + 1);
        const Mat av = want.attention * want.v();
        QVERIFY(maxDiff(outs.plots()[static_cast<std::size_t>(h)]->matrix(), av) < 1e-5f);
        QVERIFY(maxDiff(outs.plots().back()->matrix(), c.ref.cross[l].attentionOut) < 1e-6f);

        // Spectrum: singular values of the n_tgt × n_src map (Eigen's SVD in double here); no eigenvalues, said why.
        SpectrumView spec;
        spec.resize(800, 600);
        spec.showResult(r);
        spec.waitForAnalyses();
        QTRY_COMPARE(spec.spectrum().n, nt);
        const VecD sv = Eigen::JacobiSVD<MatD>(want.attention.cast<double>()).singularValues();
        QCOMPARE(spec.spectrum().attention.singularValues.size(), sv.size());
        QVERIFY((spec.spectrum().attention.singularValues - sv).cwiseAbs().maxCoeff() < 1e-5);
        QVERIFY(!spec.eigenvaluesShown());
        QVERIFY(spec.infoText().contains("not square"));

        // The head view: the selected head's lines, target left, source right (the cross view's canvas).
        HeadView hv;
        hv.resize(640, 480);
        hv.show();
        hv.showResult(r);
        QVERIFY(hv.alignment()->isVisible());
        QVERIFY(!hv.canvas()->isVisible());
        for (int round = 0; round < 4; ++round) QCoreApplication::processEvents();  // the layout sizes the canvas
        QVERIFY(hv.alignment()->width() > 0);
        hv.alignment()->repaint();
        QCOMPARE(hv.alignment()->linesDrawn(),
                 static_cast<int>((want.attention.array() >= static_cast<float>(AlignmentCanvas::kMinWeight)).count()));
        QVERIFY(hv.title().contains(QString("decoder layer %1 · head %2").arg(l).arg(h)));
        hv.hide();
      }

    // The model grid: every decoder layer × head, each thumbnail target rows × source columns; exported numbers are the
    // maps; the tooltip under the mouse names the target row's and the source column's tokens.
    const ResultPtr r = shownStack(LiveController::compute(c.params(layers - 1, heads - 1), model, {}));
    ModelGridView grid;
    grid.resize(800, 500);
    grid.showResult(r);
    QCOMPARE(grid.layerCount(), layers);
    QCOMPARE(grid.headCount(), heads);
    QVERIFY(grid.title().startsWith("Cross-attention"));
    QVERIFY(grid.title().contains(QString("%1 target rows × %2 source columns").arg(c.tgt.size()).arg(c.src.size())));
    const ViewNumbers gn = grid.numbers(*r);
    QCOMPARE(static_cast<int>(gn.matrices.size()), layers * heads);
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < heads; ++h) {
        const LabelledMatrix& m = gn.matrices[static_cast<std::size_t>(l * heads + h)];
        QCOMPARE(m.name, "cross_attention_L" + std::to_string(l) + "_H" + std::to_string(h));
        QVERIFY((m.values - c.ref.cross[l].heads[h].attention.cast<double>()).cwiseAbs().maxCoeff() < 1e-6);
        QCOMPARE(QString::fromStdString(m.rowLabels.back()), c.targets.back());
        QCOMPARE(QString::fromStdString(m.colLabels.front()), c.sources.front());
        // The last target row's first source column: the cell at the thumbnail's bottom-left corner.
        const QRect cell = grid.thumbnailRect(l, h);
        const QString tip = grid.crossCellText(QPoint(cell.left() + 1, cell.bottom() - 1), l, h);
        const int nt = static_cast<int>(c.tgt.size());
        QVERIFY2(tip.contains(QString("target “%1” [%2]").arg(c.targets.back()).arg(nt - 1)), qPrintable(tip));
        QVERIFY2(tip.contains(QString("source “%1” [0]").arg(c.sources.front())), qPrintable(tip));
        QVERIFY(tip.contains(QString::number(c.ref.cross[l].heads[h].attention(nt - 1, 0), 'f', 4)));
      }
  }

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  /// "cross" is a stack a session keeps and reads back; anything else is refused naming the three.
  void sessionsKeepTheCrossStack() {
    Params p;
    p.selection.stack = "cross";
    const nlohmann::json j = toJson(p);
    QCOMPARE(j["selection"]["stack"].get<std::string>(), std::string("cross"));
    QCOMPARE(paramsFromJson(j).selection.stack, std::string("cross"));
    nlohmann::json bad = j;
    bad["selection"]["stack"] = "sideways";
    try {
      paramsFromJson(bad);
      QFAIL("accepted selection.stack \"sideways\"");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("\"encoder\", \"decoder\" or \"cross\""), e.what());
    }
  }

  /// builtin:reverse: "d c b a" read as "a b c" (4 target rows × 5 source columns).
  void builtinReverseViews() {
    const Case c(QString::fromStdString(shippedEncDecFolder(kShippedReverseModel)), "d c b a", "a b c");
    checkViews(c);
  }

  /// The tiny Marian checkpoint with separate SentencePiece models for the two sides.
  void marianViews() {
    QTemporaryDir tmp;
    const Case c(makeMarianFolder(tmp), "the attention head looks back", "der Kopf");
    checkViews(c);
  }

  /// `export` of the cross stack: the model view's numbers are every cross map; a view of one stack refuses in one
  /// line.
  void exportsTheCrossGrid() {
    const Case c(QString::fromStdString(shippedEncDecFolder(kShippedReverseModel)), "d c b a", "a b c");
    const ResultPtr r = LiveController::compute(c.params(0, 0), makeModel(c.params(0, 0)), {});
    QTemporaryDir tmp;
    ExportRequest req;
    req.view = "model";
    req.path = tmp.path() + "/grid.json";
    req.format = "json";
    req.size.width = 800;
    req.size.height = 500;
    QCOMPARE(exportView(r, req), QString());
    QFile f(req.path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonArray matrices = doc["matrices"].toArray();
    int compared = 0;
    for (const QJsonValue& v : matrices) {
      const QJsonObject m = v.toObject();
      const QString name = m["name"].toString();
      QVERIFY2(name.startsWith("cross_attention_L"), qPrintable(name));
      const int l = name.mid(17, 1).toInt(), h = name.mid(20).toInt();
      const Mat& want = c.ref.cross[static_cast<std::size_t>(l)].heads[static_cast<std::size_t>(h)].attention;
      const QJsonArray rows = m["values"].toArray();
      QCOMPARE(rows.size(), static_cast<int>(want.rows()));
      for (int i = 0; i < rows.size(); ++i) {
        QCOMPARE(rows[i].toArray().size(), static_cast<int>(want.cols()));
        for (int j = 0; j < want.cols(); ++j) QVERIFY(std::abs(rows[i].toArray()[j].toDouble() - want(i, j)) < 1e-6);
      }
      ++compared;
    }
    QCOMPARE(compared, static_cast<int>(c.ref.cross.size() * c.ref.cross[0].heads.size()));
    req.view = "collapse";
    req.path = tmp.path() + "/collapse.json";
    const QString refused = exportView(r, req);
    QVERIFY2(refused.contains("reads one stack") && refused.contains("cross"), qPrintable(refused));
    QVERIFY(!QFile::exists(req.path));
  }

  /// In the window: "cross" in the target bar's stack choice; the heatmap shows the cross map; the status line says
  /// which views draw it and that the others show the decoder; the choice is in the parameters a session saves.
  void windowOffersCross() {
    MainWindow w(false);
    w.show();
    Params p = w.controller()->params();
    p.sentence = "d c b a";
    p.target = "a b c";
    w.applyParams(p);
    w.modelOpener()->open(QString::fromLatin1(kShippedReverseModel));
    QTRY_VERIFY_WITH_TIMEOUT(w.controller()->lastResult() && encDecRunOf(*w.controller()->lastResult()), 20000);
    QTRY_VERIFY(!w.controller()->busy() && w.controller()->lastResult()->params.target == "a b c");
    QComboBox* stack = w.targetBar()->stackChoice();
    const int i = stack->findData(QStringLiteral("cross"));
    QVERIFY(i >= 0);
    stack->setCurrentIndex(i);
    emit stack->activated(i);
    QTRY_COMPARE(w.controller()->lastResult()->params.selection.stack, std::string("cross"));
    QCOMPARE(toJson(w.currentParams())["selection"]["stack"].get<std::string>(), std::string("cross"));
    auto* heat = static_cast<HeatmapView*>(w.view("heatmap"));
    QTRY_COMPARE(heat->plot()->rows(), 4);
    QCOMPARE(heat->plot()->cols(), 5);
    QLabel* status = w.findChild<QLabel*>("status");
    QVERIFY2(status->text().contains("views that read one stack show the decoder"), qPrintable(status->text()));
    // Back to the decoder: the line goes.
    const int d = stack->findData(QStringLiteral("decoder"));
    stack->setCurrentIndex(d);
    emit stack->activated(d);
    QTRY_COMPARE(w.controller()->lastResult()->params.selection.stack, std::string("decoder"));
    QTRY_VERIFY(!status->text().contains("read one stack"));
  }
};

ATTNLAB_TEST_MAIN(TestEncDecCrossStack)
#include "test_encdec_cross_stack.moc"
