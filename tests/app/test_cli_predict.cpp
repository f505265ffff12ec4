// `attnlab predict`, `attribute` and `patch` (issue 16's public JSON contract) on the tiny GPT-2 checkpoint:
// schema names and fields, the prediction against tests/reference/predict_reference.json, attribution that
// adds up, the patching map's fixed points, and a clear message with exit 1 for bad input.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

namespace {

const QString kModel = QString(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";
const QString kBert = QString(ATTNLAB_TEST_DATA) + "/fixtures/lm-buddy/bert_tiniest";
const QString kClean = "The cat sat on the mat and the cat gave a";
const QString kCorrupt = "The cat sat on the mat and a cat gave a";

QJsonObject runJson(const QStringList& args) {
  const AppRun r = runApp(args);
  if (r.code != 0) qWarning() << r.err;
  return r.code == 0 ? QJsonDocument::fromJson(r.out).object() : QJsonObject();
}

double total(const QJsonObject& a) {
  double s = a["embeddings"].toDouble() + a["bias"].toDouble();
  for (const auto& layer : a["heads"].toArray())
    for (const auto& h : layer.toArray()) s += h.toDouble();
  for (const auto& m : a["mlp"].toArray()) s += m.toDouble();
  return s;
}

}  // namespace

class TestCliPredict : public QObject {
  Q_OBJECT

 private slots:
  void predictListsTheTopTokens() {
    const QJsonObject j =
        runJson({"predict", "--model", kModel, "--sentence", "The cat sat on the mat", "--top", "4", "--logit-lens"});
    QCOMPARE(j["schema"].toString(), QString("attnlab.predict/1"));
    QCOMPARE(j["position"].toInt(), 9);
    QCOMPARE(j["token_ids"].toArray().size(), 10);
    const QJsonArray top = j["top"].toArray();
    QCOMPARE(top.size(), 4);
    QCOMPARE(top[0].toObject()["id"].toInt(), 261);  // the reference's most probable token
    QVERIFY(std::abs(top[0].toObject()["prob"].toDouble() - 0.28373896) < 1e-4);
    QCOMPARE(top[0].toObject()["token"].toString(), QString("ed"));
    const QJsonArray lens = j["logit_lens"].toArray();
    QCOMPARE(lens.size(), 3);
    QCOMPARE(lens[0].toObject()["layer"].toInt(), -1);
    QCOMPARE(lens[2].toObject()["top"].toArray()[0].toObject()["id"].toInt(), 261);
  }

  void bertPredictsTheMaskedToken() {
    const QJsonObject j = runJson({"predict", "--model", kBert, "--sentence", "the [MASK] sat", "--top", "3"});
    QCOMPARE(j["position"].toInt(), 2);  // [CLS] the [MASK] sat [SEP]: the mask, not the last token
    QCOMPARE(j["token_ids"].toArray()[2].toInt(), 103);
    const QJsonArray top = j["top"].toArray();
    QCOMPARE(top.size(), 3);
    // make_mlm_reference.py's top tokens at the mask of "the [MASK] sat on the mat" are ##sea, abbess, 1965; with
    // the shorter sentence the one-layer model ranks the same three, the last two swapped.
    QCOMPARE(top[0].toObject()["token"].toString(), QString("##sea"));
    QCOMPARE(top[0].toObject()["id"].toInt(), 17310);
    QCOMPARE(top[1].toObject()["token"].toString(), QString("abbess"));
    QCOMPARE(top[2].toObject()["token"].toString(), QString("1965"));
    const QJsonObject last = runJson({"predict", "--model", kBert, "--sentence", "the cat sat", "--top", "1"});
    QCOMPARE(last["position"].toInt(), 4);  // no [MASK]: the last token
  }

  void ablationChangesThePrediction() {
    const QJsonObject plain = runJson({"predict", "--model", kModel, "--sentence", "The cat sat on the mat"});
    const QJsonObject ablated = runJson({"predict", "--model", kModel, "--sentence", "The cat sat on the mat",
                                         "--ablate", "0.1,1.2", "--ablate-mode", "mean", "--position", "9"});
    QVERIFY(!plain.isEmpty() && !ablated.isEmpty());
    QVERIFY(plain["top"].toArray()[0].toObject()["prob"].toDouble() !=
            ablated["top"].toArray()[0].toObject()["prob"].toDouble());
  }

  void attributionAddsUp() {
    const QJsonObject j = runJson({"attribute", "--model", kModel, "--sentence", "The cat sat on the mat", "--target",
                                   "Ġcat", "--versus", "260", "--position", "3"});
    QCOMPARE(j["schema"].toString(), QString("attnlab.attribution/1"));
    QCOMPARE(j["target"].toObject()["id"].toInt(), 302);
    QCOMPARE(j["heads"].toArray().size(), 2);
    QCOMPARE(j["heads"].toArray()[0].toArray().size(), 4);
    QVERIFY(std::abs(total(j) - j["logit"].toDouble()) < 1e-4);
    const QJsonObject v = j["versus"].toObject();
    QCOMPARE(v["token"].toString(), QString("Ġthe"));
    QVERIFY(std::abs(total(v) - v["logit"].toDouble()) < 1e-4);
  }

  void patchingMapHasItsFixedPoints() {
    const QJsonObject j = runJson(
        {"patch", "--model", kModel, "--clean", kClean, "--corrupt", kCorrupt, "--target", "Ġcat", "--versus", "Ġthe"});
    QCOMPARE(j["schema"].toString(), QString("attnlab.patch/1"));
    const QJsonArray resid = j["resid"].toArray();
    QCOMPARE(resid.size(), 3);
    QVERIFY(std::abs(resid[0].toArray()[11].toDouble() - 1.0) < 1e-4);
    QVERIFY(std::abs(resid[2].toArray()[14].toDouble() - 1.0) < 1e-4);
    QVERIFY(std::abs(j["heads"].toArray()[1].toArray()[2].toDouble() - (-0.0544288566)) < 1e-3);
    QVERIFY(std::abs(j["clean_diff"].toDouble() - (-3.5132804)) < 1e-4);
  }

  // Issue 31: --map asks for one map (or head × position), --ablate keeps heads off in every run.
  void patchMapsAndAblations() {
    const QStringList base{"patch",  "--model",  kModel, "--clean",  kClean, "--corrupt",
                           kCorrupt, "--target", "Ġcat", "--versus", "Ġthe"};
    const QJsonObject all = runJson(base);
    QCOMPARE(all["map"].toString(), QString("all"));
    QCOMPARE(all["first_difference"].toInt(), 11);
    QVERIFY(all["skipped"].toInt() > 0);
    // The warning exactly when |clean − corrupt| < 0.1.
    QCOMPARE(all.contains("warning"), std::abs(all["clean_diff"].toDouble() - all["corrupt_diff"].toDouble()) < 0.1);
    const QJsonObject heads = runJson(base + QStringList{"--map", "heads"});
    QVERIFY(!heads.contains("resid"));
    QVERIFY(std::abs(heads["heads"].toArray()[1].toArray()[2].toDouble() -
                     all["heads"].toArray()[1].toArray()[2].toDouble()) < 1e-4);
    const QJsonObject positions = runJson(base + QStringList{"--map", "positions"});
    QVERIFY(!positions.contains("heads"));
    QVERIFY(std::abs(positions["resid"].toArray()[2].toArray()[14].toDouble() - 1.0) < 1e-4);
    const QJsonObject cells = runJson(base + QStringList{"--map", "head-position"});
    const QJsonArray hp = cells["head_positions"].toArray();
    QCOMPARE(hp.size(), 8);  // 2 layers × 4 heads
    QCOMPARE(hp[0].toArray().size(), 15);
    QCOMPARE(hp[5].toArray()[3].toDouble(), 0.0);  // before the first differing token: nothing to patch
    const QJsonObject ablated = runJson(base + QStringList{"--ablate", "0.1,1.3", "--ablate-mode", "mean"});
    QCOMPARE(ablated["ablate"].toArray().size(), 2);
    QCOMPARE(ablated["ablate_mode"].toString(), QString("mean"));
    QVERIFY(std::abs(ablated["clean_diff"].toDouble() - all["clean_diff"].toDouble()) > 1e-3);
    const AppRun bad = runApp(base + QStringList{"--map", "layers"});
    QCOMPARE(bad.code, 1);
    QVERIFY(bad.err.contains("--map must be all, heads, positions or head-position, got 'layers'"));
  }

  // Issue 31: resample ablation from the sentence itself changes nothing; from another text it does.
  void resampleAblation() {
    const QStringList s{"predict", "--model", kModel, "--sentence", "The cat sat on the mat", "--top", "3"};
    const QJsonObject plain = runJson(s);
    const QJsonObject own = runJson(s + QStringList{"--ablate", "1.2,0.3", "--ablate-mode", "resample",
                                                    "--resample-text", "The cat sat on the mat"});
    const QJsonObject other = runJson(s + QStringList{"--ablate", "1.2,0.3", "--ablate-mode", "resample",
                                                      "--resample-text", "A dog ran in the park"});
    for (int i = 0; i < 3; ++i) {
      const QJsonObject p = plain["top"].toArray()[i].toObject(), o = own["top"].toArray()[i].toObject();
      QCOMPARE(o["id"].toInt(), p["id"].toInt());
      QVERIFY(std::abs(o["prob"].toDouble() - p["prob"].toDouble()) < 1e-6);
    }
    QVERIFY(std::abs(other["top"].toArray()[0].toObject()["prob"].toDouble() -
                     plain["top"].toArray()[0].toObject()["prob"].toDouble()) > 1e-4);
  }

  // A session whose heads are switched off, with --ablate on top: --ablate runs from the plain model, so the session's
  // heads were silently dropped; now it is a message.
  void ablateOverASessionsAblationIsRefused() {
    QTemporaryDir dir;
    const QString session = dir.filePath("s.json");
    QFile f(session);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString(R"({"sentence": "The cat sat", "model_dir": "%1", "prediction": {"ablate": ["0.1"]}})")
                .arg(kModel)
                .toUtf8());
    f.close();
    const AppRun both = runApp({"predict", "--params", session, "--ablate", "1.0"});
    QCOMPARE(both.code, 1);
    QVERIFY2(QString::fromUtf8(both.err).contains("not both"), both.err.constData());
    const AppRun session_only = runApp({"predict", "--params", session});
    QCOMPARE(session_only.code, 0);
  }

  void badInputIsRefused_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QStringList s{"--model", kModel, "--sentence", "The cat sat"};
    QTest::newRow("position") << (QStringList{"predict"} + s + QStringList{"--position", "40"})
                              << "outside the sentence";
    QTest::newRow("head") << (QStringList{"predict"} + s + QStringList{"--ablate", "2.0"}) << "does not exist";
    QTest::newRow("heads syntax") << (QStringList{"predict"} + s + QStringList{"--ablate", "1-2"}) << "LAYER.HEAD";
    QTest::newRow("mode") << (QStringList{"predict"} + s + QStringList{"--ablate", "0.0", "--ablate-mode", "half"})
                          << "must be zero, mean or resample, got 'half'";
    QTest::newRow("resample text") << (QStringList{"predict"} + s +
                                       QStringList{"--ablate", "0.0", "--ablate-mode", "resample"})
                                   << "--ablate-mode resample needs --resample-text TEXT";
    QTest::newRow("target") << (QStringList{"attribute"} + s + QStringList{"--target", "Ġzzz"}) << "unknown token";
    QTest::newRow("lengths") << QStringList{"patch",   "--model",  kModel, "--clean",  "The cat", "--corrupt",
                                            "The mat", "--target", "1",    "--versus", "2"}
                             << "same number of tokens";
    QTest::newRow("missing") << QStringList{"patch", "--model", kModel, "--clean", "The cat"} << "needs --corrupt";
    QTest::newRow("builtin") << QStringList{"predict", "--sentence", "the cat"} << "has no unembedding";
    QTest::newRow("gemma2") << QStringList{"attribute", "--model",
                                           QString(ATTNLAB_TEST_DATA) + "/reference/decoders/gemma2-softcap"}
                            << "non-linear";
    QTest::newRow("bert attribution") << QStringList{"attribute", "--model", kBert, "--sentence", "the [MASK] sat"}
                                      << "not linear in the residual stream";
    QTest::newRow("bert without its head")
        << QStringList{"predict", "--model", QString(ATTNLAB_TEST_DATA) + "/reference/models/bert_tiny"}
        << "masked-LM head";
  }
  void badInputIsRefused() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const AppRun r = runApp(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(r.out.isEmpty());
  }
};

ATTNLAB_TEST_MAIN(TestCliPredict)
#include "test_cli_predict.moc"
