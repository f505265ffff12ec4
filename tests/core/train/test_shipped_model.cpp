// The shipped trained model is compiled into the program: a binary copied anywhere opens
// `builtin:induction` (it used to be read from the source tree's path, compiled in), with the very
// numbers of resources/models/induction.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/base/errors.h"
#include "core/run/pipeline.h"
#include "core/train/shipped_models.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

const QString kSentence = "the cat sat on the mat . the cat sat on the mat";

QString resourcesDir() { return QDir(QString(ATTNLAB_TEST_DATA) + "/../resources").canonicalPath(); }

struct Dump {
  int code = -1;
  QJsonObject json;
  QByteArray err;
};

Dump dump(const QString& binary, const QString& model, const QString& workDir) {
  QProcess p;
  p.setWorkingDirectory(workDir);
  p.start(binary, {"dump", "--model", model, "--sentence", kSentence});
  if (!p.waitForFinished(60000)) return {};
  return {p.exitCode(), QJsonDocument::fromJson(p.readAllStandardOutput()).object(), p.readAllStandardError()};
}

}  // namespace

class TestShippedModel : public QObject {
  Q_OBJECT

 private slots:
  void embeddedModelEqualsTheResourceFiles() {
    Params shipped;
    shipped.modelDir = kShippedInductionModel;
    shipped.sentence = kSentence.toStdString();
    Params folder = shipped;
    folder.modelDir = (resourcesDir() + "/models/induction").toStdString();
    const PipelineResult a = runPipeline(shipped);
    const PipelineResult b = runPipeline(folder);
    QCOMPARE(a.info.name, std::string("trained induction model (builtin:induction)"));
    QCOMPARE(a.trace.layerCount(), 2);
    QCOMPARE(a.trace.headCount(), 4);
    for (int l = 0; l < a.trace.layerCount(); ++l)
      for (int h = 0; h < a.trace.headCount(); ++h)
        QVERIFY(a.trace.layers[l].heads[h].attention == b.trace.layers[l].heads[h].attention);  // bit for bit
  }

  void unknownShippedModelIsAMessage() {
    try {
      loadShippedModel("builtin:nothing");
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("builtin:nothing"));
    }
  }

  void aCopiedBinaryOpensIt() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("attnlab");
    QVERIFY(QFile::copy(ATTNLAB_APP_BINARY, copy));
    QFile bytes(copy);
    QVERIFY(bytes.open(QIODevice::ReadOnly));
    // The source tree's resources folder is named nowhere in the program any more.
    QVERIFY(!bytes.readAll().contains(resourcesDir().toUtf8()));
    const Dump fromCopy = dump(copy, "builtin:induction", dir.path());
    QVERIFY2(fromCopy.code == 0, fromCopy.err.constData());
    const Dump fromFolder = dump(ATTNLAB_APP_BINARY, resourcesDir() + "/models/induction", dir.path());
    QVERIFY2(fromFolder.code == 0, fromFolder.err.constData());
    QVERIFY(!fromCopy.json["layers"].toArray().isEmpty());
    QCOMPARE(fromCopy.json["layers"], fromFolder.json["layers"]);
    QCOMPARE(fromCopy.json["embeddings"], fromFolder.json["embeddings"]);
    QCOMPARE(fromCopy.json["tokens"], fromFolder.json["tokens"]);
  }
};

ATTNLAB_TEST_MAIN(TestShippedModel)
#include "test_shipped_model.moc"
