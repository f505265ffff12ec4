// Direct logit attribution of T5's decoder (issue 33; core/checkpoint/encdec_attribution.h) on the tiny T5
// checkpoints of tests/reference/encdec (v1.0: tied lm_head with its d^-0.5 rescale, ReLU, d_kv·heads ≠ d; v1.1:
// untied, gated-GELU, 3 decoder layers; t5-spm: v1.1 with a 504-token vocabulary): the named shares (embedding, every
// self and cross head, every FF) add up to the model's logit at every target position; each head's share equals a
// hand computation from the float64 reference's per-head outputs (attention · V), the safetensors W_O, final norm γ
// and W_U; a head switched off (zero) changes the logit, with σ frozen, by −its share plus the change of what reads
// it later (the same layer's FF for a last-layer cross head) — exactly that, and not −its share alone; post-LN
// families and bad input get messages.
#include <QtTest>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/encdec_attribution.h"
#include "core/checkpoint/encdec_model.h"
#include "core/checkpoint/safetensors.h"
#include "tests/harness/test_registry.h"
#include "tests/safetensors_tensor.h"

using namespace attnlab;
using attnlab::test::tensor;

namespace {

std::string refDir(const QString& name) {
  return std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/" + name.toStdString();
}

/// A reference.json matrix [rows][cols] as float64.
MatD toMatD(const nlohmann::json& rows) {
  MatD m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = rows[std::size_t(i)][std::size_t(j)].get<double>();
  return m;
}

int argmax(const Mat& logits, int row) {
  Eigen::Index id = 0;
  logits.row(row).maxCoeff(&id);
  return static_cast<int>(id);
}

double worstSum = 0;  // the largest |parts − logit| / max(1, |logit|) seen

}  // namespace

class TestEncDecAttribution : public QObject {
  Q_OBJECT

 private slots:
  void sharesSumToTheLogit_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"t5-v1_0", "t5-v1_1", "t5-spm"}) QTest::newRow(n) << n;
  }

  /// At every target position, to the prediction and to logit(prediction) − logit(runner-up): embedding + heads + FF
  /// = the model's logit (its own unembedding on the final stream) to 1e-5 relative, with nothing left over.
  void sharesSumToTheLogit() {
    QFETCH(QString, name);
    const nlohmann::json ref = readJsonFile(refDir(name) + "/reference.json");
    const auto m = EncDecModel::open(refDir(name));
    const EncDecTrace t =
        m->forward(ref["source_ids"].get<std::vector<int>>(), ref["target_ids"].get<std::vector<int>>());
    const int layers = m->config().decoderLayers, heads = m->config().decoderHeads;
    for (int p = 0; p < static_cast<int>(t.logits.rows()); ++p) {
      const int best = argmax(t.logits, p);
      Mat others = t.logits.row(p);
      others(best) = -INFINITY;
      const int second = argmax(others, 0);
      for (int versus : {-1, second}) {
        const DecoderAttribution a = decoderLogitAttribution(*m, t, p, best, versus);
        QCOMPARE(a.self.rows(), Eigen::Index(layers));
        QCOMPARE(a.cross.cols(), Eigen::Index(heads));
        const double want = double(t.logits(p, best)) - (versus >= 0 ? double(t.logits(p, versus)) : 0.0);
        QVERIFY(std::abs(a.logit - want) <= 1e-6 * std::max(1.0, std::abs(want)));  // the unembedding is logits()'s
        const double err = std::abs(a.parts() - a.logit) / std::max(1.0, std::abs(a.logit));
        worstSum = std::max(worstSum, err);
        QVERIFY2(err <= 1e-5, qPrintable(QString("%1 position %2: parts %3, logit %4")
                                             .arg(name)
                                             .arg(p)
                                             .arg(a.parts(), 0, 'g', 9)
                                             .arg(a.logit, 0, 'g', 9)));
        QVERIFY(std::abs(a.rest) <= 1e-5 * std::max(1.0, std::abs(a.logit)));
      }
    }
  }

  void headSharesByHand_data() { sharesSumToTheLogit_data(); }

  /// Each head's share at the last target position by hand, in float64 from the reference and the safetensors file:
  /// z_h = attention_h[p] · V_h, g = γ ⊙ u_t / σ with σ of the reference's final stream (u_t of lm_head, or of shared
  /// · d^-0.5 when tied), share = z_h · (W_O[:, h's columns]ᵀ · g); the FF's and the embedding's likewise. 1e-4.
  void headSharesByHand() {
    QFETCH(QString, name);
    const nlohmann::json ref = readJsonFile(refDir(name) + "/reference.json");
    const nlohmann::json config = readJsonFile(refDir(name) + "/config.json");
    SafetensorsFile file(refDir(name) + "/model.safetensors");
    const auto m = EncDecModel::open(refDir(name));
    const EncDecTrace t =
        m->forward(ref["source_ids"].get<std::vector<int>>(), ref["target_ids"].get<std::vector<int>>());
    const nlohmann::json& layersRef = ref["decoder"]["layers"];
    const int p = static_cast<int>(ref["target_ids"].size()) - 1;
    const MatD refLogits = toMatD(ref["logits"]);
    Eigen::Index target = 0;
    refLogits.row(p).maxCoeff(&target);
    QCOMPARE(int(target), argmax(t.logits, p));  // the same prediction

    const VecD x = toMatD(layersRef.back()["residual_out"]).row(p).transpose();
    const double d = double(x.size());
    const double sigma = std::sqrt(x.squaredNorm() / d + config["layer_norm_epsilon"].get<double>());
    const bool tied = config["tie_word_embeddings"].get<bool>();
    VecD u = tensor(file, tied ? "shared.weight" : "lm_head.weight").row(target).transpose();
    if (tied) u /= std::sqrt(d);
    const VecD g = tensor(file, "decoder.final_layer_norm.weight").col(0).cwiseProduct(u) / sigma;

    const DecoderAttribution a = decoderLogitAttribution(*m, t, p, int(target));
    QVERIFY(std::abs(a.sigma - sigma) <= 1e-5 * sigma);
    const auto near = [](double got, double want) {
      return std::abs(got - want) <= 1e-4 * std::max(1.0, std::abs(want));
    };
    QVERIFY(near(a.embeddings, toMatD(ref["decoder"]["embeddings"]).row(p).dot(g)));
    const int heads = config["num_heads"].get<int>(), dkv = config["d_kv"].get<int>();
    double worst = 0;
    for (std::size_t l = 0; l < layersRef.size(); ++l) {
      const std::string block = "decoder.block." + std::to_string(l) + ".layer.";
      for (const char* kind : {"self", "cross"}) {
        const bool cross = std::string(kind) == "cross";
        const nlohmann::json& r = cross ? layersRef[l]["cross"] : layersRef[l];
        const MatD wO = tensor(file, block + (cross ? "1.EncDecAttention.o.weight" : "0.SelfAttention.o.weight"));
        QCOMPARE(wO.cols(), Eigen::Index(heads * dkv));
        for (int h = 0; h < heads; ++h) {
          const VecD z = (toMatD(r["attention"][std::size_t(h)]).row(p) * toMatD(r["v"][std::size_t(h)])).transpose();
          const double want = z.dot(wO.middleCols(h * dkv, dkv).transpose() * g);
          const double got = cross ? a.cross(Eigen::Index(l), h) : a.self(Eigen::Index(l), h);
          worst = std::max(worst, std::abs(got - want) / std::max(1.0, std::abs(want)));
          QVERIFY2(near(got, want), qPrintable(QString("%1 layer %2 %3 head %4: %5 vs %6 by hand")
                                                   .arg(name)
                                                   .arg(l)
                                                   .arg(kind)
                                                   .arg(h)
                                                   .arg(got)
                                                   .arg(want)));
        }
      }
      QVERIFY(near(a.ff(Eigen::Index(l)), toMatD(layersRef[l]["mlp_out"]).row(p).dot(g)));
    }
    qInfo("%s: logit %.6f = embedding %.4f + self %.4f + cross %.4f + FF %.4f; worst head error %.2e", qPrintable(name),
          a.logit, a.embeddings, a.self.sum(), a.cross.sum(), a.ff.sum(), worst);
  }

  void zeroAblation_data() { sharesSumToTheLogit_data(); }

  /// A cross head of the last layer switched off (zero): its share becomes 0, every share that does not read its
  /// output is unchanged, and with σ frozen at the plain run's the logit moves by −share + the change of the last
  /// FF's share (the FF reads the stream after cross-attention) — exactly. So the share alone is the whole effect
  /// only on the direct path (the head's output taken out of the final stream, σ frozen). With σ recomputed the
  /// ablated run's own shares still add up to its logit.
  void zeroAblation() {
    QFETCH(QString, name);
    const nlohmann::json ref = readJsonFile(refDir(name) + "/reference.json");
    const auto m = EncDecModel::open(refDir(name));
    const std::vector<int> src = ref["source_ids"].get<std::vector<int>>(),
                           tgt = ref["target_ids"].get<std::vector<int>>();
    const EncDecTrace plain = m->forward(src, tgt);
    const int p = static_cast<int>(tgt.size()) - 1, target = argmax(plain.logits, p);
    const int last = m->config().decoderLayers - 1;
    const DecoderAttribution a = decoderLogitAttribution(*m, plain, p, target);
    for (int h = 0; h < m->config().decoderHeads; ++h) {
      EncDecAblation ab;
      ab.cross.mode = AblationMode::Zero;
      ab.cross.ablate = {HeadRef{last, h}};
      const EncDecTrace off = m->forward(src, tgt, true, ab);
      const DecoderAttribution frozen = decoderLogitAttribution(*m, off, p, target, -1, a.sigma);
      QCOMPARE(frozen.cross(last, h), 0.0);
      const double tol = 1e-5 * std::max(1.0, std::abs(a.logit));
      QVERIFY(std::abs(frozen.embeddings - a.embeddings) <= tol);
      QVERIFY((frozen.self - a.self).cwiseAbs().maxCoeff() <= tol);
      for (int k = 0; k < m->config().decoderHeads; ++k)
        if (k != h) QVERIFY(std::abs(frozen.cross(last, k) - a.cross(last, k)) <= tol);
      QVERIFY((frozen.cross.topRows(last) - a.cross.topRows(last)).cwiseAbs().maxCoeff() <= tol);
      QVERIFY((frozen.ff.head(last) - a.ff.head(last)).cwiseAbs().maxCoeff() <= tol);
      const double share = a.cross(last, h), ffChange = frozen.ff(last) - a.ff(last);
      const double frozenChange = frozen.total() - a.total();
      QVERIFY2(std::abs(frozenChange - (-share + ffChange)) <= tol,
               qPrintable(QString("%1 vs %2").arg(frozenChange).arg(-share + ffChange)));
      // The share alone is the direct path: the final stream without the head's output, σ frozen.
      const VecD c = (plain.cross[std::size_t(last)].concat.row(p).segment(h * m->config().decoderHeadDim,
                                                                           m->config().decoderHeadDim) *
                      m->decoderOutputProjection(last, true)
                          .middleRows(h * m->config().decoderHeadDim, m->config().decoderHeadDim))
                         .transpose()
                         .cast<double>();
      const Unembedding& u = m->decoderUnembedding();
      const VecD x = plain.decoder.layers.back().residualOut.row(p).transpose().cast<double>() - c;
      const double direct =
          u.gamma.cast<double>().cwiseProduct(x).dot(u.weights().row(target).transpose().cast<double>()) / a.sigma;
      QVERIFY(std::abs(direct - (a.logit - share)) <= tol);
      // σ recomputed: the ablated run's shares add up to its own logit.
      const DecoderAttribution own = decoderLogitAttribution(*m, off, p, target);
      QVERIFY(std::abs(own.parts() - own.logit) <= 1e-5 * std::max(1.0, std::abs(own.logit)));
      qInfo(
          "%s cross %d.%d off: share %.5f; logit change %.5f (σ frozen: %.5f, of which the last FF %.5f); σ %.4f → "
          "%.4f",
          qPrintable(name), last, h, share, own.logit - a.logit, frozenChange, ffChange, a.sigma, own.sigma);
    }
  }

  /// Marian and BART are refused with the reason; a position outside the target and a token outside the vocabulary
  /// are named.
  void badInput() {
    for (const char* name : {"bart", "marian-tied"}) {
      const nlohmann::json ref = readJsonFile(refDir(name) + "/reference.json");
      const auto m = EncDecModel::open(refDir(name));
      const EncDecTrace t =
          m->forward(ref["source_ids"].get<std::vector<int>>(), ref["target_ids"].get<std::vector<int>>());
      try {
        decoderLogitAttribution(*m, t, 0, 0);
        QFAIL("a post-LN decoder was attributed");
      } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("post-LN") != std::string::npos, e.what());
      }
    }
    const nlohmann::json ref = readJsonFile(refDir("t5-v1_1") + "/reference.json");
    const auto m = EncDecModel::open(refDir("t5-v1_1"));
    const std::vector<int> tgt = ref["target_ids"].get<std::vector<int>>();
    const EncDecTrace t = m->forward(ref["source_ids"].get<std::vector<int>>(), tgt);
    QVERIFY_THROWS_EXCEPTION(InputError, decoderLogitAttribution(*m, t, static_cast<int>(tgt.size()), 0));
    QVERIFY_THROWS_EXCEPTION(InputError, decoderLogitAttribution(*m, t, 0, 96));
    QVERIFY_THROWS_EXCEPTION(InputError, decoderLogitAttribution(*m, t, 0, 3, -7));
  }

  void cleanupTestCase() { qInfo("worst |parts − logit| / max(1, |logit|): %.2e", worstSum); }
};

ATTNLAB_TEST_GUILESS_MAIN(TestEncDecAttribution)
#include "test_encdec_attribution.moc"
