// Training the tiny transformer: the phase change of the induction task (and its absence with one
// layer), the reverse task's mirror head, determinism, and the trained model as an ordinary Model
// that saves and reopens through the checkpoint path. Step counts are bounded so the test takes seconds
// to a minute on the CI machine; each loop stops as soon as its target is met.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include "core/base/errors.h"
#include "core/run/model_factory.h"
#include "core/train/tiny_checkpoint.h"
#include "core/train/tiny_model.h"
#include "core/train/train_json.h"
#include "core/train/trainer.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

TrainSettings inductionSettings(int layers, uint64_t seed) {
  TrainSettings s;  // the issue's defaults: d 64, 4 heads, vocab 128, context 33, Adam 3e-3, batch 32
  s.task = TrainTask::Induction;
  s.model.layers = layers;
  s.model.seed = seed;
  s.model.mlp = false;
  return s;
}

/// Trains until the task's primary score of the best head exceeds `target` (checked every 100 steps)
/// or `maxSteps` pass; returns the best score seen and the step it was reached at.
std::pair<double, int> trainUntil(Trainer& t, double target, int maxSteps) {
  double best = 0;
  while (t.stepCount() < maxSteps) {
    for (int k = 0; k < 100; ++k) t.step();
    best = std::max(best, bestHead(t.snapshot(), t.settings().task).score);
    if (best > target) break;
  }
  return {best, t.stepCount()};
}

}  // namespace

class TestTraining : public QObject {
  Q_OBJECT

 private slots:
  void twoLayerModelFormsAnInductionHead() {
    for (uint64_t seed : {1u, 2u, 3u}) {
      Trainer t(inductionSettings(2, seed));
      const auto [score, steps] = trainUntil(t, 0.5, 3000);
      qInfo("seed %d: induction score %.3f after %d steps, loss %.4f", static_cast<int>(seed), score, steps,
            t.lastLoss());
      QVERIFY2(score > 0.5, qPrintable(QString("seed %1: best induction score %2").arg(seed).arg(score)));
      // The induction head reads from a previous-token head in layer 0: that head must exist too.
      const TrainSnapshot s = t.snapshot();
      double prev = 0;
      for (const auto& head : s.scores[0]) prev = std::max(prev, head.at("previous_token"));
      qInfo("seed %d: best previous-token score in layer 0: %.3f", static_cast<int>(seed), prev);
      // Uniform attention would give about 0.14 here; the head that feeds the induction head is far above.
      QVERIFY2(prev > 0.35,
               qPrintable(QString("seed %1: best previous-token score in layer 0: %2").arg(seed).arg(prev)));
      QCOMPARE(bestHead(s, TrainTask::Induction).layer, 1);
    }
  }

  void oneLayerModelNeverFormsOne() {
    Trainer t(inductionSettings(1, 1));
    const auto [score, steps] = trainUntil(t, 0.3, 1500);
    qInfo("1 layer: best induction score %.3f after %d steps", score, steps);
    QVERIFY2(score < 0.3, qPrintable(QString("1-layer induction score %1").arg(score)));
  }

  void reverseFormsAMirrorHead() {
    TrainSettings s;
    s.task = TrainTask::Reverse;
    s.model.mlp = false;
    Trainer t(s);
    const auto [score, steps] = trainUntil(t, 0.9, 3000);
    qInfo("reverse: mirror score %.3f after %d steps, accuracy %.3f", score, steps, t.snapshot().accuracy);
    QVERIFY2(score > 0.9, qPrintable(QString("mirror score %1").arg(score)));
  }

  void trainingIsDeterministicForASeed() {
    TrainSettings s = inductionSettings(2, 7);
    s.model.mlp = true;
    Trainer a(s), b(s);
    for (int k = 0; k < 5; ++k) QCOMPARE(a.step(), b.step());
    std::vector<const Eigen::MatrixXf*> pa, pb;
    a.params().forEach([&](const std::string&, const Eigen::MatrixXf& m) { pa.push_back(&m); });
    b.params().forEach([&](const std::string&, const Eigen::MatrixXf& m) { pb.push_back(&m); });
    for (std::size_t i = 0; i < pa.size(); ++i) QVERIFY(*pa[i] == *pb[i]);
    s.model.seed = 8;
    Trainer c(s);
    QVERIFY(c.step() != Trainer(inductionSettings(2, 7)).step());
  }

  void everyTaskAndVariantTrainsAFewSteps() {
    for (TrainTask task :
         {TrainTask::Induction, TrainTask::Reverse, TrainTask::Copy, TrainTask::Sort, TrainTask::Recall})
      for (TinyAttention a : {TinyAttention::Softmax, TinyAttention::LinearElu, TinyAttention::LinearExp}) {
        TrainSettings s;
        s.task = task;
        s.model.attention = a;
        s.model.mlp = true;
        s.model.relu = task == TrainTask::Sort || task == TrainTask::Recall;  // both MLP non-linearities train
        s.batch = 8;
        Trainer t(s);
        const double first = t.step();
        double last = first;
        for (int k = 0; k < 30; ++k) last = t.step();
        QVERIFY2(std::isfinite(last) && last < first,
                 qPrintable(QString("%1/%2: loss %3 -> %4").arg(toString(task)).arg(toString(a)).arg(first).arg(last)));
        const TrainSnapshot snap = t.snapshot();
        QCOMPARE(static_cast<int>(snap.scores.size()), s.model.layers);
        QVERIFY(snap.scores[0][0].count(primaryScore(task)) == 1);
        QCOMPARE(snap.attention[0][0].rows(), static_cast<Eigen::Index>(snap.probeIds.size()));
      }
  }

  void badSettingsGiveMessages() {
    TrainSettings s;
    s.adam.lr = std::nan("");
    QVERIFY_THROWS_EXCEPTION(InputError, Trainer{s});
    s = TrainSettings{};
    s.model.heads = 3;  // does not divide 64
    QVERIFY_THROWS_EXCEPTION(InputError, Trainer{s});
    s = TrainSettings{};
    s.model.layers = 9;
    QVERIFY_THROWS_EXCEPTION(InputError, Trainer{s});
    s = TrainSettings{};  // ~10 GB of activations per step: refused up front, not an allocation failure
    s.batch = 1024, s.model.context = 256, s.model.vocab = 4096, s.model.layers = 4, s.model.heads = 8;
    try {
      Trainer{s};
      QFAIL("a step needing gigabytes was accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("MB per training step"), e.what());
    }
    s = TrainSettings{};
    s.adam.lr = 1.0;  // diverges; must end in a message, not NaN weights
    s.adam.clip = 0;
    Trainer t(s);
    bool diverged = false;
    try {
      for (int k = 0; k < 200; ++k) t.step();
    } catch (const InputError& e) {
      diverged = QString(e.what()).contains("diverged");
    }
    if (!diverged) QVERIFY(std::isfinite(t.lastLoss()));  // lr 1 may also survive; it must then be finite
  }

  void typedWordsMapToRepeatingSymbols() {
    TinyConfig c;
    const TinyModel m(c, initTinyParams(c), "tiny");
    const TokenizedText t = m.tokenize("the cat sat on the mat . the cat");
    QCOMPARE(t.ids.size(), std::size_t(10));
    QCOMPARE(t.ids[0], 0);  // BOS
    QCOMPARE(QString::fromStdString(t.tokens[0].text), QString("<bos>"));
    QCOMPARE(t.ids[1], t.ids[5]);  // the … the
    QCOMPARE(t.ids[2], t.ids[9]);  // cat … cat
    std::set<int> distinct(t.ids.begin() + 1, t.ids.begin() + 8);
    QCOMPARE(distinct.size(), std::size_t(6));  // the cat sat on mat . — distinct words, distinct symbols
    for (int id : t.ids) QVERIFY(id >= 0 && id < c.vocab);
    const Trace tr = m.forward(t);
    QVERIFY(tr.causal);
    QCOMPARE(tr.layerCount(), 2);
    QCOMPARE(tr.headCount(), 4);
    QCOMPARE(tr.layers[1].heads[3].attention.rows(), 10);
    QCOMPARE(tr.layers[0].heads[0].q.cols(), 16);
    QVERIFY_THROWS_EXCEPTION(InputError, m.forward(m.tokenize("")));
    std::string longText;
    for (int i = 0; i < 40; ++i) longText += "w" + std::to_string(i) + " ";
    QVERIFY_THROWS_EXCEPTION(InputError, m.forward(m.tokenize(longText)));
    QVERIFY(m.forward(m.tokenize("🙂 émoji 中文")).tokenCount() > 1);
  }

  void savedModelReopensWithTheSameTrace() {
    TrainSettings s = inductionSettings(2, 3);
    s.model.mlp = true;
    Trainer t(s);
    for (int k = 0; k < 20; ++k) t.step();
    QTemporaryDir dir;
    const std::string path = dir.filePath("tiny").toStdString();
    saveTinyModel(path, s.model, t.params());
    QVERIFY(isTinyCheckpoint(path));
    Params p;
    p.modelDir = path;
    const auto opened = makeModel(p);  // the same entry point as --model DIR and the GUI
    QCOMPARE(QString::fromStdString(opened->info().kind), QString("tiny"));
    const TinyModel original(s.model, t.params(), "tiny");
    const std::string text = "a b c d a b c";
    const Trace x = original.forward(original.tokenize(text)), y = opened->forward(opened->tokenize(text));
    QCOMPARE(x.tokenIds, y.tokenIds);
    for (int l = 0; l < 2; ++l) {
      QVERIFY(x.layers[l].residualOut == y.layers[l].residualOut);  // bit-identical: F32 round trip
      for (int h = 0; h < 4; ++h) QVERIFY(x.layers[l].heads[h].attention == y.layers[l].heads[h].attention);
    }
  }

  void damagedSavedModelsGiveMessages() {
    TinyConfig c;
    QTemporaryDir dir;
    const std::string path = dir.filePath("m").toStdString();
    saveTinyModel(path, c, initTinyParams(c));
    // config.json that contradicts the weights: a message naming the tensor
    TinyConfig wider = c;
    wider.dModel = 128;
    QFile cfg(QString::fromStdString(path + "/config.json"));
    QVERIFY(cfg.open(QIODevice::WriteOnly | QIODevice::Truncate));
    cfg.write(QByteArray::fromStdString(toJson(wider).dump()));
    cfg.close();
    try {
      loadTinyModel(path);
      QFAIL("a misshapen tensor was accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("tok_emb"), e.what());
    }
    // a seed that is not a non-negative integer
    nlohmann::json j = toJson(c);
    j["seed"] = "seven";
    QVERIFY_THROWS_EXCEPTION(InputError, tinyConfigFromJson(j, "config.json"));
    // saving over another kind of model's folder is refused (it would destroy that checkpoint)
    const std::string other = dir.filePath("hf").toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(other)));
    QFile hf(QString::fromStdString(other + "/config.json"));
    QVERIFY(hf.open(QIODevice::WriteOnly));
    hf.write(R"({"model_type": "gpt2"})");
    hf.close();
    QVERIFY_THROWS_EXCEPTION(InputError, saveTinyModel(other, c, initTinyParams(c)));
    // truncated weights
    saveTinyModel(path, c, initTinyParams(c));
    QFile w(QString::fromStdString(path + "/model.safetensors"));
    QVERIFY(w.resize(1000));
    QVERIFY_THROWS_EXCEPTION(InputError, loadTinyModel(path));
    // NaN weights
    TinyParams<float> p = initTinyParams(c);
    p.unembed(0, 0) = std::nanf("");
    saveTinyModel(path, c, p);
    try {
      loadTinyModel(path);
      QFAIL("NaN weights were accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("NaN"), e.what());
    }
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTraining)
#include "test_training.moc"
