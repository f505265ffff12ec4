// `attnlab export --params FILE` with keys the program does not read: each is named on standard error with the closest
// known key, and the command still runs (a warning: the file's schema is one this program knows); a correct file
// warns of nothing.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

class TestCliParamsKeys : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  QString write(const QString& name, const QByteArray& text) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(text);
    return path;
  }

 private slots:
  void misspelledKeysAreNamed() {
    const QString bad = write("bad.attnlab.json", R"({"schema": "attnlab.params/1", "sentence": "the cat sat",
      "modelDir": "/nowhere", "prediction": {"ablateCross": ["0.0"]}, "selection": {"view": "heatmap", "head": 1},
      "session": {"schema": "attnlab.session/1"}})");
    const QString csv = dir_.filePath("bad.csv");
    const AppRun r = runApp({"export", "--params", bad, "--out", csv});
    QVERIFY2(r.code == 0, r.err.constData());
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains("warning: " + bad +
                          ": unknown key “modelDir” (did you mean “model_dir”?); unknown key "
                          "“prediction.ablateCross” (did you mean “prediction.ablate_cross”?)"),
             r.err.constData());
    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    QVERIFY2(c.readAll().contains("the,cat,sat"), "the export ran on the file's sentence");  // head 1's heatmap
  }

  void aCorrectFileWarnsOfNothing() {
    const QString good = write("good.attnlab.json", R"({"schema": "attnlab.params/1", "sentence": "the cat sat",
      "model_dir": "", "prediction": {"ablate_cross": []}, "session": {"schema": "attnlab.session/1"}})");
    const AppRun r = runApp({"export", "--params", good, "--view", "heatmap", "--out", dir_.filePath("good.csv")});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(!r.err.contains("unknown key"), r.err.constData());
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliParamsKeys)
#include "test_cli_params_keys.moc"
