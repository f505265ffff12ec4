// What the Debian package relies on (scripts/package, cmake/packaging.cmake): `attnlab --version` without a
// display, the manual page `attnlab --man` listing every subcommand and option of `attnlab --help`, and
// `attnlab FILE.attnlab.json` (the desktop entry's %f: a double-clicked session) starting the window on it.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "tests/app/cli_test_util.h"
#include "tests/harness/test_registry.h"

class TestCliPackage : public QObject {
  Q_OBJECT

  /// The subcommands `attnlab --help` lists in its usage lines ("  attnlab NAME …").
  static QStringList helpCommands(const QByteArray& help) {
    QStringList names;
    static const QRegularExpression line(R"(^  attnlab ([a-z][a-z-]*) )");
    for (const QByteArray& l : help.split('\n')) {
      const auto m = line.match(QString::fromUtf8(l));
      if (m.hasMatch()) names << m.captured(1);
    }
    return names;
  }

 private slots:
  void thePortableKernelGivesTheSamePrediction() {
    // What the package does on a CPU without AVX2 (ATTNLAB_KERNEL narrows the run-time choice): the same
    // prediction as the fast kernel, and both the reference's (tests/reference/predict_reference.json).
    const QString model = QString(ATTNLAB_TEST_DATA) + "/reference/models/gpt2_tiny";
    QJsonArray tops[2];
    for (int i = 0; i < 2; ++i) {
      QProcess p;
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      if (i == 1) env.insert("ATTNLAB_KERNEL", "portable");
      p.setProcessEnvironment(env);
      p.start(ATTNLAB_APP_BINARY, {"predict", "--model", model, "--sentence", "The cat sat on the mat", "--top", "5"});
      QVERIFY(p.waitForFinished(60000));
      QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
      tops[i] = QJsonDocument::fromJson(p.readAllStandardOutput()).object()["top"].toArray();
    }
    QCOMPARE(tops[0].size(), 5);
    QCOMPARE(tops[1].size(), 5);
    for (int k = 0; k < 5; ++k) {
      const QJsonObject fast = tops[0][k].toObject(), portable = tops[1][k].toObject();
      QCOMPARE(portable["id"].toInt(), fast["id"].toInt());
      QVERIFY(std::abs(portable["prob"].toDouble() - fast["prob"].toDouble()) < 1e-6);
    }
    QCOMPARE(tops[1][0].toObject()["id"].toInt(), 261);
    QVERIFY(std::abs(tops[1][0].toObject()["prob"].toDouble() - 0.28373896) < 1e-4);
  }

  void versionNeedsNoDisplay() {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(v);
    p.setProcessEnvironment(env);
    p.start(ATTNLAB_APP_BINARY, {"--version"});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 0);
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    // "attnlab 0.3.0" and, from a checkout, " (git a9f7233…)".
    QVERIFY2(QRegularExpression(R"(^attnlab \d+\.\d+\.\d+( \(git [0-9a-zA-Z.+-]+\))?\n$)").match(out).hasMatch(),
             qPrintable(out));
    QCOMPARE(runApp({"-V"}).out, out.toUtf8());
  }

  void manPageListsEverySubcommandAndOption() {
    const AppRun help = runApp({"--help"});
    const AppRun man = runApp({"--man"});
    QCOMPARE(man.code, 0);
    QVERIFY(man.out.startsWith(".TH ATTNLAB 1 "));
    const QStringList commands = helpCommands(help.out);
    QVERIFY2(commands.size() >= 11, qPrintable(commands.join(" ")));  // dump, predict, … train
    for (QString c : commands)  // rank-demo: ".SS rank\-demo" (roff's hyphen, not a minus)
      QVERIFY2(man.out.contains(("\n.SS " + c.replace("-", "\\-") + "\n").toUtf8()), qPrintable(c));
    // Every option of --help ("  --name  help") appears as a tagged paragraph, hyphens escaped for roff.
    static const QRegularExpression option(R"(^  --([a-z0-9-]+)  )");
    int options = 0;
    for (const QByteArray& l : help.out.split('\n')) {
      const auto m = option.match(QString::fromUtf8(l));
      if (!m.hasMatch()) continue;
      ++options;
      const QByteArray tagged = ".B \\-\\-" + m.captured(1).toUtf8().replace("-", "\\-") + "\n";
      QVERIFY2(man.out.contains(tagged), tagged.constData());
    }
    QVERIFY(options > 50);
    // No line of text may start with a roff control character unescaped: those would vanish from the page.
    for (const QByteArray& l : man.out.split('\n'))
      if (l.startsWith('\'')) QFAIL(l.constData());
  }

  void aSessionFileAsTheOnlyArgumentOpensTheWindowOnIt() {
    QTemporaryDir dir;
    const QString session = dir.filePath("lesson.attnlab.json");
    QFile f(session);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "attnlab.params/1", "sentence": "mary gave roses to susan",
               "selection": {"layer": 0, "head": 1, "view": "qkv"}, "session": {"schema": "attnlab.session/1"}})");
    f.close();
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("ATTNLAB_QUIT_AFTER_FIRST_RESULT", "1");
    env.insert("HOME", dir.path());  // its own settings and autosave, not the user's
    env.insert("XDG_CONFIG_HOME", dir.filePath("config"));
    p.setProcessEnvironment(env);
    p.start(ATTNLAB_APP_BINARY, {session});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    // Not a file and not a command: the usage error, not the window.
    const AppRun wrong = runApp({dir.filePath("missing.attnlab.json")});
    QCOMPARE(wrong.code, 2);
    QVERIFY(wrong.err.contains("unknown command"));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestCliPackage)
#include "test_cli_package.moc"
