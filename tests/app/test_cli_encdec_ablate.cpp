// `attnlab predict --source … --ablate / --ablate-encoder / --ablate-cross` (issue 33): the printed distribution is
// softmax of the ablated forward pass's last logits row as the core library computes it (EncDecModel::forward with an
// EncDecAblation, itself checked against the float64 references in test_encdec_ablation), the heads are echoed per
// attention, and bad requests get a message.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <cmath>

#include "core/checkpoint/encdec_model.h"
#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

QString refDir(const QString& name) { return QString(ATTNLAB_TEST_DATA) + "/reference/encdec/" + name; }

}  // namespace

class TestCliEncDecAblate : public QObject {
  Q_OBJECT
 private slots:
  void ablatedPrediction_data() {
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("mode");
    QTest::newRow("decoder zero") << "--ablate"
                                  << "zero";
    QTest::newRow("encoder mean") << "--ablate-encoder"
                                  << "mean";
    QTest::newRow("cross zero") << "--ablate-cross"
                                << "zero";
  }
  void ablatedPrediction() {
    QFETCH(QString, flag);
    QFETCH(QString, mode);
    const std::vector<int> source{5, 9, 11, 14, 2}, target{2, 7, 12};  // BART: decoder_start_token_id 2
    const AppRun r = runApp({"predict", "--model", refDir("bart"), "--source-ids", "5,9,11,14,2", "--target-ids",
                             "7,12", flag, "1.0,0.1", "--ablate-mode", mode, "--top", "5"});
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    EncDecAblation ab;
    Intervention& iv = flag == "--ablate" ? ab.decoder : flag == "--ablate-encoder" ? ab.encoder : ab.cross;
    iv.ablate = {{1, 0}, {0, 1}};
    iv.mode = mode == "mean" ? AblationMode::Mean : AblationMode::Zero;
    auto model = EncDecModel::open(refDir("bart").toStdString());
    const VecD logits = model->forward(source, target, true, ab).logits.bottomRows(1).transpose().cast<double>();
    const VecD plain = model->forward(source, target).logits.bottomRows(1).transpose().cast<double>();
    const VecD p = (logits.array() - logits.maxCoeff()).exp() / (logits.array() - logits.maxCoeff()).exp().sum();
    const QJsonArray top = j["top"].toArray();
    QCOMPARE(top.size(), 5);
    for (const QJsonValue& t : top) {
      const int id = t.toObject()["id"].toInt();
      QVERIFY(std::abs(t.toObject()["prob"].toDouble() - p(id)) <= 1e-6);
    }
    QVERIFY((logits - plain).cwiseAbs().maxCoeff() > 1e-3);  // the heads matter: the output is not the plain one
    const QString field = flag == "--ablate"           ? "ablate"
                          : flag == "--ablate-encoder" ? "ablate_encoder"
                                                       : "ablate_cross";
    QCOMPARE(j[field].toArray(), (QJsonArray{"1.0", "0.1"}));
    QCOMPARE(j["ablate_mode"].toString(), mode);
  }

  void badRequests() {
    const QStringList base{"predict", "--model", refDir("bart"), "--source-ids", "5,9,2"};
    AppRun r = runApp(base + QStringList{"--ablate-cross", "0.7"});
    QVERIFY(r.code > 0);  // an error exit, never a crash or a timeout
    QVERIFY2(r.err.contains("cross-attention") && r.err.contains("0.7"), r.err.constData());
    r = runApp(base + QStringList{"--ablate", "0.0", "--ablate-mode", "resample"});
    QVERIFY(r.code != 0 && r.err.contains("zero or mean"));
    r = runApp(base + QStringList{"--ablate-encoder", "x"});
    QVERIFY(r.code != 0 && r.err.contains("--ablate-encoder"));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliEncDecAblate)
#include "test_cli_encdec_ablate.moc"
