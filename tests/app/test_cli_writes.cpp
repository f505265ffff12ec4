// Writing through the command line never reports a success it did not have: an export or a dump to /dev/full, and
// standard output on /dev/full or closed, exit 1 with a message naming the problem; /dev/full stays a device (as root
// the old exports renamed a regular file over it); a figure written over a good one replaces it whole.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

namespace {

bool isCharDevice(const char* path) {
  struct stat st {};
  return ::stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

}  // namespace

class TestCliWrites : public QObject {
  Q_OBJECT
 private slots:
  void exportsToAFullDeviceFail_data() {
    QTest::addColumn<QStringList>("args");
    for (const char* format : {"png", "svg", "pdf", "csv", "json", "npy"})
      QTest::newRow(format) << QStringList{"export", "--view", "heatmap", "--format", format, "--out", "/dev/full"};
    QTest::newRow("dump") << QStringList{"dump", "--out", "/dev/full"};
  }
  void exportsToAFullDeviceFail() {
    QFETCH(QStringList, args);
    const AppRun r = runApp(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("/dev/full") && r.err.contains("No space left on device"), r.err.constData());
    QVERIFY(isCharDevice("/dev/full"));
  }

  void standardOutputThatCannotBeWrittenFails() {
    for (const QStringList& args :
         {QStringList{"predict", "--model", QString(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny", "--sentence",
                      "the cat sat"},
          QStringList{"dump"}, QStringList{"tokenize"}}) {
      QProcess p;
      p.setStandardOutputFile("/dev/full");
      p.start(ATTNLAB_APP_BINARY, args);
      p.write("the cat sat\n");
      p.closeWriteChannel();
      QVERIFY(p.waitForFinished(60000));
      QVERIFY2(p.exitCode() == 1, qPrintable(args.join(' ')));
      QVERIFY2(p.readAllStandardError().contains("cannot write to standard output"), qPrintable(args.join(' ')));
    }
  }

  void aFigureReplacesTheOldOneWhole() {
    QTemporaryDir dir;
    const QString out = dir.filePath("heatmap.png");
    QVERIFY(runApp({"export", "--view", "heatmap", "--out", out}).code == 0);
    const QByteArray first = [&] {
      QFile f(out);
      f.open(QIODevice::ReadOnly);
      return f.readAll();
    }();
    QVERIFY(first.startsWith("\x89PNG"));
    QVERIFY(runApp({"export", "--view", "heatmap", "--out", out, "--width", "600", "--height", "400"}).code == 0);
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray second = f.readAll();
    QVERIFY(second.startsWith("\x89PNG") && second != first);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"heatmap.png"});  // no temporary left behind
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliWrites)
#include "test_cli_writes.moc"
