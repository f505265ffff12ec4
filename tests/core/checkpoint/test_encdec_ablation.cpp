// Heads switched off in an encoder–decoder's forward pass (issue 33, EncDecAblation), on the tiny checkpoints of
// tests/reference/encdec. A head h of layer l adds (A_h·V_h)·W_o[:, h·dh … (h+1)·dh)ᵀ to its attention's output, and
// the layer's input does not depend on it; so with h switched off, that attention's output is the float64
// reference's attention_out minus that share (zero mode), or minus (A_h·V_h − its mean over the rows) times the same
// columns (mean mode). A_h and V_h come from reference.json, W_o from the checkpoint's safetensors file; none of it
// goes through EncDecModel. The layers before l, and the encoder when only decoder heads are off, stay bit for bit.
#include <QtTest>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/encdec_model.h"
#include "core/checkpoint/safetensors.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string refDir(const std::string& name) { return std::string(ATTNLAB_TEST_DATA) + "/reference/encdec/" + name; }

MatD jsonMatrix(const nlohmann::json& rows) {
  MatD m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = rows[std::size_t(i)][std::size_t(j)].get<double>();
  return m;
}

MatD tensor(SafetensorsFile& f, const std::string& name) {
  const TensorInfo* t = f.find(name);
  if (!t) throw InputError("no tensor " + name);
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
             f.floats(*t), t->shape[0], t->shape[1])
      .cast<double>();
}

/// The output projection of one attention as stored ([d, a], nn.Linear's [out, in]).
std::string outName(const std::string& family, const std::string& which, int layer) {
  const std::string l = std::to_string(layer);
  if (family == "t5") {
    if (which == "encoder") return "encoder.block." + l + ".layer.0.SelfAttention.o.weight";
    if (which == "decoder") return "decoder.block." + l + ".layer.0.SelfAttention.o.weight";
    return "decoder.block." + l + ".layer.1.EncDecAttention.o.weight";
  }
  if (which == "encoder") return "model.encoder.layers." + l + ".self_attn.out_proj.weight";
  if (which == "decoder") return "model.decoder.layers." + l + ".self_attn.out_proj.weight";
  return "model.decoder.layers." + l + ".encoder_attn.out_proj.weight";
}

double relError(const MatD& got, const MatD& want) {
  return (got - want).cwiseAbs().maxCoeff() / std::max(1.0, want.cwiseAbs().maxCoeff());
}

}  // namespace

class TestEncDecAblation : public QObject {
  Q_OBJECT
 private slots:
  void headShareRemoved_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("which");
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::addColumn<bool>("mean");
    for (const char* n : {"bart", "t5-v1_0", "marian-separate"})
      for (const char* w : {"encoder", "decoder", "cross"})
        for (bool mean : {false, true})
          QTest::addRow("%s %s %s", n, w, mean ? "mean" : "zero") << n << w << 1 << 1 << mean;
    QTest::newRow("t5-v1_1 cross layer 0 zero") << "t5-v1_1"
                                                << "cross" << 0 << 0 << false;
  }
  void headShareRemoved() {
    QFETCH(QString, name);
    QFETCH(QString, which);
    QFETCH(int, layer);
    QFETCH(int, head);
    QFETCH(bool, mean);
    const std::string dir = refDir(name.toStdString()), w = which.toStdString();
    const nlohmann::json ref = readJsonFile(dir + "/reference.json");
    const std::string family = ref["family"].get<std::string>();
    auto model = EncDecModel::open(dir);
    const std::vector<int> source = ref["source_ids"], target = ref["target_ids"];
    EncDecAblation ab;
    Intervention& iv = w == "encoder" ? ab.encoder : w == "decoder" ? ab.decoder : ab.cross;
    iv.ablate = {{layer, head}};
    iv.mode = mean ? AblationMode::Mean : AblationMode::Zero;
    const EncDecTrace plain = model->forward(source, target);
    const EncDecTrace t = model->forward(source, target, true, ab);

    // The reference's head h of that attention: A_h [n_q, n_k], V_h [n_k, dh].
    const nlohmann::json& stack = ref[w == "encoder" ? "encoder" : "decoder"]["layers"][std::size_t(layer)];
    const nlohmann::json& att = w == "cross" ? stack["cross"] : stack;
    const MatD a = jsonMatrix(att["attention"][std::size_t(head)]), v = jsonMatrix(att["v"][std::size_t(head)]);
    MatD share = a * v;  // [n_q, dh]
    if (mean) share.rowwise() -= share.colwise().mean();
    SafetensorsFile file(dir + "/model.safetensors");
    const MatD wo = tensor(file, outName(family, w, layer));  // [d, H·dh]
    const Eigen::Index dh = v.cols();
    const MatD expected = jsonMatrix(att["attention_out"]) - share * wo.middleCols(head * dh, dh).transpose();
    const Mat& got = w == "encoder" ? t.encoder.layers[std::size_t(layer)].attentionOut
                     : w == "cross" ? t.cross[std::size_t(layer)].attentionOut
                                    : t.decoder.layers[std::size_t(layer)].attentionOut;
    const double err = relError(got.cast<double>(), expected);
    qInfo("%s %s L%d.H%d %s: attention output off the reference by %.2e (the head's share: %.3g)", qPrintable(name),
          w.c_str(), layer, head, mean ? "mean" : "zero", err, share.cwiseAbs().maxCoeff());
    QVERIFY(err <= 1e-4);
    QVERIFY(share.cwiseAbs().maxCoeff() > 1e-2);  // the share is not negligible: the comparison bites
    // The traced head outputs record what the output projection received.
    const Mat& concat = w == "cross" ? t.cross[std::size_t(layer)].concat
                                     : (w == "encoder" ? t.encoder : t.decoder).layers[std::size_t(layer)].concat;
    if (!mean) QCOMPARE(concat.middleCols(head * dh, dh).cwiseAbs().maxCoeff(), 0.0f);
    // Nothing upstream moves: the layers before, and the encoder when a decoder head is off.
    for (int l = 0; l < layer; ++l) {
      const Trace& s = w == "encoder" ? t.encoder : t.decoder;
      const Trace& p = w == "encoder" ? plain.encoder : plain.decoder;
      QVERIFY(s.layers[std::size_t(l)].residualOut == p.layers[std::size_t(l)].residualOut);
    }
    if (w != "encoder") QVERIFY(t.encoderOut == plain.encoderOut);
    QVERIFY((t.logits - plain.logits).cwiseAbs().maxCoeff() > 1e-4f);  // and the prediction changes
  }

  /// Heads the stack does not have and resample mode are refused with the attention named.
  void badAblations() {
    auto model = EncDecModel::open(refDir("bart"));
    EncDecAblation ab;
    ab.cross.ablate = {{0, 9}};
    try {
      model->forward({5, 6, 2}, {2, 7}, true, ab);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("cross-attention") != std::string::npos, e.what());
    }
    ab.cross.ablate = {{0, 0}};
    ab.cross.mode = AblationMode::Resample;
    QVERIFY_THROWS_EXCEPTION(InputError, model->forward({5, 6, 2}, {2, 7}, true, ab));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestEncDecAblation)
#include "test_encdec_ablation.moc"
