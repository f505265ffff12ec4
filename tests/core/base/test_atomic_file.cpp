// The one file writer (core/base/atomic_file.h): a new file gets the usual mode, a replaced one keeps its mode,
// and every failure — a full disk (injected, and a real 64 KB tmpfs where mounting is allowed), /dev/full, a
// folder, a FIFO without a reader — throws naming the path and the reason while the old file stays byte for byte
// and no temporary file is left behind; a device is written directly and never replaced by a regular file.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string readAll(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The message of the InputError `f` throws, or "" when it throws none.
template <typename F>
QString messageOf(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

mode_t modeOf(const QString& path) {
  struct stat st {};
  ::stat(path.toLocal8Bit().constData(), &st);
  return st.st_mode;
}

}  // namespace

class TestAtomicFile : public QObject {
  Q_OBJECT
 private slots:
  void writesANewFileWithTheUsualMode() {
    QTemporaryDir dir;
    const QString path = dir.filePath("figure.csv");
    writeFileAtomically(path.toStdString(), "a,b\n1,2\n");
    QCOMPARE(readAll(path), std::string("a,b\n1,2\n"));
    const mode_t mask = ::umask(0);
    ::umask(mask);
    QCOMPARE(modeOf(path) & 0777, 0666 & ~mask);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"figure.csv"});  // no temporary left
  }

  void replacesAFileKeepingItsMode() {
    QTemporaryDir dir;
    const QString path = dir.filePath("session.attnlab.json");
    writeFileAtomically(path.toStdString(), "old");
    QVERIFY(::chmod(path.toLocal8Bit().constData(), 0640) == 0);
    writeFileAtomically(path.toStdString(), "new text");
    QCOMPARE(readAll(path), std::string("new text"));
    QCOMPARE(modeOf(path) & 0777, mode_t(0640));
  }

  void aFullDiskLeavesTheOldFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath("dump.json");
    writeFileAtomically(path.toStdString(), "the good file");
    failNextAtomicWriteForTesting(ENOSPC);
    const QString m = messageOf([&] { writeFileAtomically(path.toStdString(), std::string(100000, 'x')); });
    QVERIFY2(m.startsWith(path + ": cannot write; the file there is unchanged"), qPrintable(m));
    QVERIFY2(m.contains("No space left on device"), qPrintable(m));
    QCOMPARE(readAll(path), std::string("the good file"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"dump.json"});
  }

  void aRealFullFilesystemLeavesTheOldFile() {
    // A 64 KB tmpfs: the write of 1 MB fails with ENOSPC for real (needs root and a sandbox that allows mount).
    QTemporaryDir dir;
    if (::geteuid() != 0) QSKIP("mounting a tmpfs needs root");
    if (::mount("tmpfs", dir.path().toLocal8Bit().constData(), "tmpfs", 0, "size=64k") != 0)
      QSKIP(qPrintable(QString("cannot mount a tmpfs here: ") + std::strerror(errno)));
    const QString path = dir.filePath("figure.png");
    writeFileAtomically(path.toStdString(), "PNG of before");
    const QString m = messageOf([&] { writeFileAtomically(path.toStdString(), std::string(1 << 20, 'x')); });
    const std::string after = readAll(path);
    const QStringList left = QDir(dir.path()).entryList(QDir::Files);
    ::umount(dir.path().toLocal8Bit().constData());
    QVERIFY2(m.contains("No space left on device"), qPrintable(m));
    QCOMPARE(after, std::string("PNG of before"));
    QCOMPARE(left, QStringList{"figure.png"});
  }

  void aDeviceIsWrittenDirectlyAndKept() {
    const QString m = messageOf([] { writeFileAtomically("/dev/full", "numbers"); });
    QVERIFY2(m.startsWith("/dev/full: writing failed") && m.contains("No space left on device"), qPrintable(m));
    QVERIFY(S_ISCHR(modeOf("/dev/full")));        // still the device, not a regular file renamed over it
    writeFileAtomically("/dev/null", "numbers");  // a device that takes them: no error
    QVERIFY(S_ISCHR(modeOf("/dev/null")));
  }

  void aFolderOrAFifoWithoutReaderIsNamed() {
    QTemporaryDir dir;
    QVERIFY2(messageOf([&] { writeFileAtomically(dir.path().toStdString(), "x"); }).endsWith("is a folder, not a file"),
             "folder");
    const QString fifo = dir.filePath("pipe");
    QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
    const QString m = messageOf([&] { writeFileAtomically(fifo.toStdString(), "x"); });  // must not hang
    QVERIFY2(m.startsWith(fifo + ": cannot open for writing"), qPrintable(m));
    QVERIFY(S_ISFIFO(modeOf(fifo)));
  }

  void aMissingFolderIsNamed() {
    const QString m = messageOf([] { writeFileAtomically("/nonexistent-folder/out.pdf", "x"); });
    QVERIFY2(m.startsWith("/nonexistent-folder/out.pdf: cannot write in /nonexistent-folder"), qPrintable(m));
    QVERIFY2(m.contains("No such file or directory"), qPrintable(m));
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
