// The Prediction view on an encoder–decoder's decoder (issue 33), on the tiny checkpoints of
// tests/reference/encdec (T5 v1.0 tied with its d^-0.5 rescale, T5 v1.1 untied, BART and Marian with
// final_logits_bias): the bars are softmax of the logits EncDecModel::forward computes, the lens's last row is the
// prediction, and the lens's row after decoder layer 0 equals one computed here from the reference's float64 stream
// (reference.json, decoder.layers[0].residual_out) and the checkpoint's own tensors, read from the safetensors file
// with the family's final step written out by hand (T5: RMSNorm·γ, ·d^-0.5 when tied, ·W_Uᵀ; Marian/BART: ·W_Uᵀ +
// bias). With the encoder shown the view says that the encoder predicts no token and offers the decoder.
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>
#include <sstream>

#include "core/base/json_file.h"
#include "core/checkpoint/safetensors.h"
#include "core/run/encdec_run.h"
#include "tests/harness/test_registry.h"
#include "tests/safetensors_tensor.h"
#include "ui/shell/live_controller.h"
#include "ui/views/common/encdec_result.h"
#include "ui/views/prediction/prediction_view.h"

using namespace attnlab;
using attnlab::test::tensor;
using namespace attnlab::ui;

namespace {

std::string refDir(const QString& name) {
  return std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/" + name.toStdString();
}

/// Texts of decimal ids: "12 5 7" → ids 12, 5, 7 (the reference checkpoints have no tokenizer files; the ids are the
/// reference's own). Pieces are "t<id>".
class IdTokenizer : public TextTokenizer {
 public:
  explicit IdTokenizer(int vocab) : vocab_(vocab) {}
  TokenizedText encode(std::string_view text, bool) const override {
    TokenizedText t;
    std::istringstream in{std::string(text)};
    int id = 0;
    while (in >> id) {
      Token k;
      k.text = pieceOf(id);
      t.tokens.push_back(k);
      t.ids.push_back(id);
    }
    return t;
  }
  int vocabSize() const override { return vocab_; }
  std::string pieceOf(int id) const override { return "t" + std::to_string(id); }
  int idOf(const std::string& piece) const override {
    return piece.size() > 1 && piece[0] == 't' ? std::stoi(piece.substr(1)) : -1;
  }

 private:
  int vocab_;
};

std::string joined(const std::vector<int>& ids, std::size_t from) {
  std::string s;
  for (std::size_t i = from; i < ids.size(); ++i) s += (s.empty() ? "" : " ") + std::to_string(ids[i]);
  return s;
}

struct Case {
  std::shared_ptr<const EncDecFolderModel> model;
  nlohmann::json ref;
  Params params;
};

Case open(const QString& name) {
  Case c;
  c.ref = readJsonFile(refDir(name) + "/reference.json");
  EncDecFolder f;
  f.model = EncDecModel::open(refDir(name));
  f.source = std::make_unique<IdTokenizer>(f.model->config().vocabSize);
  f.target = std::make_unique<IdTokenizer>(f.model->config().decoderVocabSize);
  c.model = std::make_shared<const EncDecFolderModel>(std::move(f), name.toStdString());
  const std::vector<int> target = c.ref["target_ids"].get<std::vector<int>>();
  c.params.sentence = joined(c.ref["source_ids"].get<std::vector<int>>(), 0);
  c.params.target = joined(target, 1);  // the folder model puts decoder_start_token_id first
  c.params.selection.stack = "decoder";
  c.params.prediction.ablate.clear();
  return c;
}

const LabelledMatrix* matrix(const ViewNumbers& n, const std::string& name) {
  for (const LabelledMatrix& m : n.matrices)
    if (m.name == name) return &m;
  return nullptr;
}

bool labelContains(QWidget* w, const QString& text) {
  for (QLabel* l : w->findChildren<QLabel*>())
    if (l->isVisibleTo(w) && l->text().contains(text)) return true;
  return false;
}

}  // namespace

class TestEncDecPrediction : public QObject {
  Q_OBJECT
 private slots:
  void decoderPredicts_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"t5-v1_0", "t5-v1_1", "bart", "marian-tied", "marian-separate"}) QTest::newRow(n) << n;
  }
  void decoderPredicts() {
    QFETCH(QString, name);
    const Case c = open(name);
    const ResultPtr r = LiveController::compute(c.params, c.model, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    const std::vector<int> target = c.ref["target_ids"].get<std::vector<int>>();
    QCOMPARE(r->run->text.ids, target);  // the decoder's input is the reference's
    PredictionView view;
    view.resize(1000, 700);
    view.showResult(shownStack(r));
    view.waitForAnalyses();
    const ViewNumbers n = view.numbers(*r);
    const int position = static_cast<int>(target.size()) - 1;

    // The bars: softmax of what forward() computes at the last target position, in double.
    const EncDecTrace run =
        c.model->model().forward(c.ref["source_ids"].get<std::vector<int>>(), target);  // the model's own pass
    const VecD logits = run.logits.row(position).transpose().cast<double>();
    const VecD p = (logits.array() - logits.maxCoeff()).exp() / (logits.array() - logits.maxCoeff()).exp().sum();
    const LabelledMatrix* top = matrix(n, "prediction");
    if (!top)
      for (QLabel* l : view.findChildren<QLabel*>()) qInfo("label: %s", qPrintable(l->text()));
    QVERIFY(top);
    QCOMPARE(top->values.rows(), Eigen::Index(PredictionView::kTop));
    double previous = 1.0;
    for (Eigen::Index i = 0; i < top->values.rows(); ++i) {
      const int id = std::stoi(top->rowLabels[static_cast<std::size_t>(i)].substr(1));
      QVERIFY(std::abs(top->values(i, 1) - p(id)) <= 1e-6);
      QVERIFY(std::abs(top->values(i, 0) - logits(id)) <= 1e-6 * (1 + std::abs(logits(id))));
      QVERIFY(p(id) <= previous + 1e-12);  // most probable first
      previous = p(id);
    }
    // …and the float64 reference's distribution agrees at the checkpoint tests' tolerance.
    const std::vector<double> refRow = c.ref["logits"][static_cast<std::size_t>(position)].get<std::vector<double>>();
    const VecD refLogits = Eigen::Map<const VecD>(refRow.data(), static_cast<Eigen::Index>(refRow.size()));
    const VecD refP =
        (refLogits.array() - refLogits.maxCoeff()).exp() / (refLogits.array() - refLogits.maxCoeff()).exp().sum();
    for (Eigen::Index i = 0; i < top->values.rows(); ++i)
      QVERIFY(std::abs(top->values(i, 1) - refP(std::stoi(top->rowLabels[std::size_t(i)].substr(1)))) <= 1e-4);

    // The lens: its rows are emb, L0, L1 (the decoders have two layers); the last one is the prediction.
    const LabelledMatrix* lensIds = matrix(n, "logit_lens_id");
    const LabelledMatrix* lensProb = matrix(n, "logit_lens_prob");
    QVERIFY(lensIds && lensProb);
    const int layers = c.model->model().config().decoderLayers;
    QCOMPARE(lensIds->values.rows(), Eigen::Index(layers + 1));
    const auto col = static_cast<Eigen::Index>(
        std::find(lensIds->colLabels.begin(), lensIds->colLabels.end(), std::to_string(position)) -
        lensIds->colLabels.begin());
    QVERIFY(col < lensIds->values.cols());
    Eigen::Index best = 0;
    logits.maxCoeff(&best);
    QCOMPARE(int(lensIds->values(layers, col)), int(best));
    QVERIFY(std::abs(lensProb->values(layers, col) - p(best)) <= 1e-5);

    // Layer 0's row by hand from the float64 stream and the checkpoint's tensors.
    const std::vector<double> stream =
        c.ref["decoder"]["layers"][0]["residual_out"][static_cast<std::size_t>(position)].get<std::vector<double>>();
    VecD x = Eigen::Map<const VecD>(stream.data(), static_cast<Eigen::Index>(stream.size()));
    SafetensorsFile file(refDir(name) + "/model.safetensors");
    const nlohmann::json config = readJsonFile(refDir(name) + "/config.json");
    VecD lens;
    if (name.startsWith("t5")) {  // pre-norm: the final RMSNorm (no mean), then the tied head's rescale
      const double eps = config.value("layer_norm_epsilon", 1e-6);
      x = x / std::sqrt(x.squaredNorm() / double(x.size()) + eps);
      x = x.cwiseProduct(tensor(file, "decoder.final_layer_norm.weight").col(0));
      const bool tied = config.value("tie_word_embeddings", true);
      if (tied) x /= std::sqrt(double(x.size()));
      lens = tensor(file, tied ? "shared.weight" : "lm_head.weight") * x;
    } else {  // post-LN: the layer's output is already normalised; lm_head (or the shared table) and the bias
      MatD head = tensor(file, "lm_head.weight");
      if (head.size() == 0) head = tensor(file, "model.shared.weight");
      lens = head * x + tensor(file, "final_logits_bias").row(0).transpose();
    }
    Eigen::Index lensBest = 0;
    lens.maxCoeff(&lensBest);
    const double lensP = 1.0 / (lens.array() - lens(lensBest)).exp().sum();
    QCOMPARE(int(lensIds->values(1, col)), int(lensBest));
    QVERIFY2(std::abs(lensProb->values(1, col) - lensP) <= 1e-4,
             qPrintable(QString("%1 vs %2").arg(lensProb->values(1, col)).arg(lensP)));
    qInfo("%s: p(top) %.6f; layer 0's lens top t%d p %.6f (by hand %.6f)", qPrintable(name), top->values(0, 1),
          int(lensBest), lensProb->values(1, col), lensP);
    QVERIFY(view.findChild<QLabel*>() && labelContains(&view, "· decoder"));
  }

  /// Heads switched off in each of the three attentions: the bars are the ablated run's, and the ablation line's
  /// numbers compare it with the run without them — both passes made here by the core library (EncDecModel::forward
  /// with and without an EncDecAblation, itself checked in test_encdec_ablation), softmax and KL in double.
  void ablationComparesWithThePlainRun_data() {
    QTest::addColumn<QString>("which");
    QTest::addColumn<bool>("mean");
    QTest::newRow("encoder zero") << "encoder" << false;
    QTest::newRow("decoder mean") << "decoder" << true;
    QTest::newRow("cross zero") << "cross" << false;
  }
  void ablationComparesWithThePlainRun() {
    QFETCH(QString, which);
    QFETCH(bool, mean);
    Case c = open("bart");
    EncDecAblation ab;
    const std::vector<HeadRef> heads{{0, 1}, {1, 0}};  // sorted, as the session keeps them
    if (which == "encoder") c.params.prediction.ablateEncoder = heads, ab.encoder.ablate = heads;
    if (which == "decoder") c.params.prediction.ablate = heads, ab.decoder.ablate = heads;
    if (which == "cross") c.params.prediction.ablateCross = heads, ab.cross.ablate = heads;
    c.params.prediction.ablationMode = mean ? AblationMode::Mean : AblationMode::Zero;
    ab.encoder.mode = ab.decoder.mode = ab.cross.mode = c.params.prediction.ablationMode;
    const ResultPtr r = LiveController::compute(c.params, c.model, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    PredictionView view;
    view.resize(1000, 700);
    view.showResult(r);
    view.waitForAnalyses();
    const ViewNumbers n = view.numbers(*r);
    const std::vector<int> source = c.ref["source_ids"], target = c.ref["target_ids"];
    const auto softmax = [](const VecD& z) {
      return VecD((z.array() - z.maxCoeff()).exp() / (z.array() - z.maxCoeff()).exp().sum());
    };
    const VecD plain =
        softmax(c.model->model().forward(source, target).logits.bottomRows(1).transpose().cast<double>());
    const VecD ablated =
        softmax(c.model->model().forward(source, target, true, ab).logits.bottomRows(1).transpose().cast<double>());
    const LabelledMatrix* top = matrix(n, "prediction");
    QVERIFY(top);
    for (Eigen::Index i = 0; i < top->values.rows(); ++i)
      QVERIFY(std::abs(top->values(i, 1) - ablated(std::stoi(top->rowLabels[std::size_t(i)].substr(1)))) <= 1e-6);
    const LabelledMatrix* a = matrix(n, "ablation");
    QVERIFY(a);
    Eigen::Index best = 0;
    plain.maxCoeff(&best);
    QCOMPARE(int(a->values(0, 0)), int(best));  // the plain run's prediction
    QVERIFY(std::abs(a->values(0, 1) - plain(best)) <= 1e-6);
    QVERIFY(std::abs(a->values(0, 2) - ablated(best)) <= 1e-6);
    const double kl = (plain.array() * (plain.array() / ablated.array()).log()).sum();
    QVERIFY2(std::abs(a->values(0, 3) - kl) <= 1e-5 * std::max(1.0, kl), qPrintable(QString::number(kl)));
    QVERIFY(kl > 1e-4);  // the heads matter
    const QString attention = which == "cross" ? "cross-attention 0.1, 1.0" : which + " self-attention 0.1, 1.0";
    QVERIFY2(labelContains(&view, attention), qPrintable(attention));
    qInfo("bart, %s heads 0.1 and 1.0 off (%s): p %.4f → %.4f, KL %.4f nats", qPrintable(which), mean ? "mean" : "zero",
          plain(best), ablated(best), kl);
    // "switch all heads back on" clears every attention's list.
    QSignalSpy asked(&view, &PredictionView::paramsRequested);
    for (QLabel* l : view.findChildren<QLabel*>())
      if (l->text().contains("href='clear'")) emit l->linkActivated("clear");
    QCOMPARE(asked.count(), 1);
    QVERIFY(!anyAblated(asked.first().first().value<Params>().prediction));
  }

  /// The encoder's stack: a message saying why, a link that asks for the decoder, and no numbers.
  void encoderOffersTheDecoder() {
    Case c = open("bart");
    c.params.selection.stack = "encoder";
    const ResultPtr r = LiveController::compute(c.params, c.model, {});
    QVERIFY2(r->ok(), qPrintable(r->error));
    const ResultPtr shown = shownStack(r);
    QVERIFY(shown->run != r->run);
    PredictionView view;
    view.show();
    QSignalSpy asked(&view, &PredictionView::paramsRequested);
    view.showResult(shown);
    view.waitForAnalyses();
    QVERIFY(labelContains(&view, "the encoder predicts no token"));
    QVERIFY(matrix(view.numbers(*shown), "prediction") == nullptr);
    QLabel* message = nullptr;
    for (QLabel* l : view.findChildren<QLabel*>())
      if (l->text().contains("href='decoder'")) message = l;
    QVERIFY(message);
    emit message->linkActivated("decoder");
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.first().first().value<Params>().selection.stack, std::string("decoder"));
  }
};

ATTNLAB_TEST_MAIN(TestEncDecPrediction)
#include "test_encdec_prediction.moc"
