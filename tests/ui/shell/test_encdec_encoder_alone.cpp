// The encoder of an encoder–decoder run alone on a text (issue 33: "the head atlas where it applies"): the encoder
// stack's Model::forward is what the views that run the model on other texts call (the head atlas's probe, similar
// heads, head contexts). Its maps and outputs equal the float64 reference's encoder (tests/reference/encdec/marian-spm,
// ≤ 1e-4) and the encoder of the two-text run with any target; heads switched off equal the pair's run with the
// same encoder ablation; the decoder and patching refuse with a message; `export` draws the atlas of the encoder and
// refuses, writing no file, the views the decoder or an encoder–decoder cannot draw.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/run/encdec_run.h"
#include "core/run/model_factory.h"
#include "core/train/shipped_models.h"
#include "tests/encdec_window.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/view_export.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

/// The tiny Marian with its SentencePiece files (tests/encdec_window.h).
std::shared_ptr<const EncDecFolderModel> openMarian(const QTemporaryDir& tmp) {
  return openEncDecModel(attnlab::test::makeMarianFolder(tmp).toStdString());
}

double worst(const Mat& got, const nlohmann::json& rows) {
  if (got.rows() != static_cast<Eigen::Index>(rows.size())) return 1e9;
  double w = 0;
  for (Eigen::Index i = 0; i < got.rows(); ++i) {
    if (got.cols() != static_cast<Eigen::Index>(rows[i].size())) return 1e9;
    for (Eigen::Index j = 0; j < got.cols(); ++j) {
      const double e = rows[i][j].get<double>();
      w = std::max(w, std::abs(got(i, j) - e) / std::max(1.0, std::abs(e)));
    }
  }
  return w;
}

Params paramsOf(const std::string& dir, const std::string& source, const std::string& target, const char* stack) {
  Params p;
  p.modelDir = dir;
  p.sentence = source;
  p.target = target;
  p.selection.stack = stack;
  return p;
}

}  // namespace

class TestEncDecEncoderAlone : public QObject {
  Q_OBJECT

 private slots:
  /// The encoder alone on the reference's source ids = the float64 reference's encoder, map for map.
  void encoderAloneMatchesTheReference() {
    QTemporaryDir tmp;
    const auto m = openMarian(tmp);
    const nlohmann::json ref =
        readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/marian-spm/reference.json");
    TokenizedText text;
    text.ids = ref["source_ids"].get<std::vector<int>>();
    text.tokens.assign(text.ids.size(), Token{"t"});
    const Trace t = m->stackModel(false)->forward(text, {}, {});
    QCOMPARE(t.layers.size(), ref["encoder"]["layers"].size());
    double w = 0;
    for (std::size_t l = 0; l < t.layers.size(); ++l) {
      const nlohmann::json& rl = ref["encoder"]["layers"][l];
      for (std::size_t h = 0; h < t.layers[l].heads.size(); ++h)
        w = std::max(w, worst(t.layers[l].heads[h].attention, rl["attention"][h]));
      w = std::max(w, worst(t.layers[l].attentionOut, rl["attention_out"]));
      w = std::max(w, worst(t.layers[l].residualOut, rl["residual_out"]));
    }
    qInfo("encoder alone vs the float64 reference: worst relative error %.2e", w);
    QVERIFY(w <= 1e-4);
  }

  /// The encoder alone on the source text = the two-text run's encoder (any target), also with a head switched off
  /// (zero and mean) = the pair's run with that encoder ablation; the decoder and patching refuse.
  void encoderAloneIsThePairsEncoder() {
    QTemporaryDir tmp;
    const auto m = openMarian(tmp);
    const std::string source = "the attention head looks back";
    const auto enc = m->stackModel(false);
    const TokenizedText src = enc->tokenize(source);
    QCOMPARE(src.ids, m->tokenizeSource(source).ids);
    for (AblationMode mode : {AblationMode::Zero, AblationMode::Mean}) {
      for (bool ablated : {false, true}) {
        Intervention iv;
        EncDecAblation pairAblation;
        if (ablated) {
          iv.ablate = {{1, 0}};
          iv.mode = mode;
          pairAblation.encoder = iv;
        }
        const Trace alone = enc->forward(src, {}, iv);
        const EncDecTrace pair = m->model().forward(src.ids, m->tokenizeTarget("ein Kopf").ids, true, pairAblation);
        for (std::size_t l = 0; l < alone.layers.size(); ++l) {
          for (std::size_t h = 0; h < alone.layers[l].heads.size(); ++h)
            QVERIFY(
                (alone.layers[l].heads[h].attention - pair.encoder.layers[l].heads[h].attention).cwiseAbs().maxCoeff() <
                1e-6);
          QVERIFY((alone.layers[l].residualOut - pair.encoder.layers[l].residualOut).cwiseAbs().maxCoeff() < 1e-6);
        }
      }
    }
    // Zero ablation changes the encoder's last output (the switched head is in its last layer).
    Intervention off;
    off.ablate = {{1, 0}};
    QVERIFY((enc->forward(src, {}, off).layers.back().residualOut - enc->forward(src, {}, {}).layers.back().residualOut)
                .cwiseAbs()
                .maxCoeff() > 1e-4);

    const auto refused = [](const std::function<void()>& f, const char* expected) {
      try {
        f();
        return false;
      } catch (const InputError& e) {
        return QString::fromUtf8(e.what()).contains(expected);
      }
    };
    QVERIFY(refused([&] { m->stackModel(true)->forward(m->tokenizeTarget("ein"), {}, {}); }, "decoder"));
    Trace clean = enc->forward(src, {}, {});
    Intervention patch;
    patch.source = &clean;
    patch.patchHeads = {{0, 0}};
    QVERIFY(refused([&] { enc->forward(src, {}, patch); }, "patching"));
    Intervention resample;
    resample.ablate = {{0, 0}};
    resample.mode = AblationMode::Resample;
    resample.resample = &clean;
    QVERIFY(refused([&] { enc->forward(src, {}, resample); }, "resampling"));
    QVERIFY(refused(
        [&] {
          enc->forward(enc->tokenize([] {
            std::string s;
            for (int i = 0; i < 600; ++i) s += "a ";
            return s;
          }()),
                       {}, {});
        },
        "positions"));
  }

  /// `export`: the head atlas of builtin:reverse's encoder has a score per head; the decoder's atlas, similar heads and
  /// head contexts, and patching on either stack, are refused in one line and write no file.
  void exportDrawsTheEncodersAtlasAndRefusesTheRest() {
    const std::string dir = kShippedReverseModel;
    QTemporaryDir tmp;
    ExportRequest req;
    req.format = "json";
    req.size.width = 900;
    req.size.height = 600;
    const Params encP = paramsOf(dir, "p l a n e t", "t e n", "encoder");
    const ResultPtr enc = LiveController::compute(encP, makeModel(encP), {});
    QVERIFY2(enc && enc->ok(), enc ? qPrintable(enc->error) : "no result");
    req.view = "heads";
    req.path = tmp.path() + "/atlas.json";
    QCOMPARE(exportView(enc, req), QString());
    QFile f(req.path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray matrices = QJsonDocument::fromJson(f.readAll()).object()["matrices"].toArray();
    QVERIFY(!matrices.isEmpty());
    const QJsonObject scatter = matrices[0].toObject();
    QCOMPARE(scatter["rows"].toArray().size(), 2);  // builtin:reverse's encoder: 1 layer × 2 heads
    for (const QJsonValue& row : scatter["values"].toArray())
      for (int c = 0; c < 2; ++c) {  // previous-token and induction scores: mean attention weights in [0, 1]
        const double v = row.toArray()[c].toDouble();
        QVERIFY(v >= 0 && v <= 1);
      }

    const Params decP = paramsOf(dir, "p l a n e t", "t e n", "decoder");
    const ResultPtr dec = LiveController::compute(decP, makeModel(decP), {});
    QVERIFY(dec && dec->ok());
    for (const auto& [result, view] :
         {std::pair{dec, "heads"}, std::pair{dec, "similar_heads"}, std::pair{dec, "head_contexts"},
          std::pair{dec, "patching"}, std::pair{enc, "patching"}}) {
      req.view = view;
      req.path = tmp.path() + "/" + view + ".json";
      const QString why = exportView(result, req);
      QVERIFY2(why.contains(view) && (why.contains("decoder") || why.contains("patches")), qPrintable(why));
      QVERIFY(!QFile::exists(req.path));
    }
  }
};

ATTNLAB_TEST_MAIN(TestEncDecEncoderAlone)
#include "test_encdec_encoder_alone.moc"
