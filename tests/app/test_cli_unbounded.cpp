// Inputs without an end are refused, not read until memory runs out or waited on for ever: /dev/zero and a FIFO as
// --sentence-file or --params, a folder where a file is expected, and a line of standard input without an end
// (`tokenize < /dev/zero`) each give a message naming the file or the limit and exit 1, within seconds.
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

class TestCliUnbounded : public QObject {
  Q_OBJECT
 private slots:
  void specialFilesAreRefused_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    for (const char* option : {"--sentence-file", "--params"}) {
      QTest::addRow("%s /dev/zero", option) << option << "/dev/zero"
                                            << "/dev/zero: is not a regular file";
      QTest::addRow("%s folder", option) << option << "/tmp"
                                         << "/tmp: is a folder, not a file";
      QTest::addRow("%s fifo", option) << option << "FIFO"
                                       << ": is not a regular file";
    }
  }
  void specialFilesAreRefused() {
    QFETCH(QString, option);
    QFETCH(QString, path);
    QFETCH(QString, message);
    QTemporaryDir dir;
    if (path == "FIFO") {
      path = dir.filePath("fifo");
      QVERIFY(::mkfifo(path.toLocal8Bit().constData(), 0600) == 0);  // no writer: reading it would block
    }
    QElapsedTimer t;
    t.start();
    const AppRun r = runApp({"dump", option, path}, {}, 20000);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(t.elapsed() < 20000);
  }

  void aLongRunSaysSoOnStandardError() {
    // rank-demo at n = 1,024 with a sweep: a few seconds here, minutes at 4,096. It says so before the wait and
    // reports the sweep at most once a second; standard output stays the JSON alone.
    const AppRun r = runApp({"rank-demo", "--n", "1024", "--sweep", "--sweep-points", "6"}, {}, 120000);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("attnlab rank-demo: the singular values of two 1024 × 1024 matrices take a while"),
             r.err.constData());
    // The sweep's own lines depend on how long it takes (none under a second): not asserted here.
    QJsonParseError error;
    QJsonDocument::fromJson(r.out, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
  }

  void anEndlessLineOfStandardInputIsRefused() {
    QProcess p;
    p.setStandardInputFile("/dev/zero");
    p.start(ATTNLAB_APP_BINARY, {"tokenize"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(p.readAllStandardError().contains("a line of standard input is longer than 64 MB"), "message");
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliUnbounded)
#include "test_cli_unbounded.moc"
