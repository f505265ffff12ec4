// "Keep the last N tokens" for an encoder–decoder (issue 33 with issue 31's strip): a source or a target longer than
// the model's positions is refused, and the strip names which text is too long, with both lengths; its button cuts
// that text — and only that one — to the end that fits (the target's start token counted), as an undoable edit: the
// run that follows reads exactly the whole text's last tokens, and Undo brings the whole text (and the strip) back.
// On tests/reference/encdec/marian-spm with its SentencePiece files and max_position_embeddings set to 10.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "core/base/json_file.h"
#include "core/run/encdec_run.h"
#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/model_opener.h"
#include "ui/shell/param_history.h"
#include "ui/shell/target_bar.h"
#include "ui/shell/too_long_bar.h"
#include "ui/views/common/encdec_result.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

constexpr int kPositions = 10;

/// The tiny Marian checkpoint with its tokenizer files, its positions cut to kPositions.
QString makeShortMarian(const QTemporaryDir& tmp) {
  const QString dir = tmp.path() + "/marian-short";
  QDir().mkpath(dir);
  const QString weights = QString(ATTNLAB_TEST_DATA) + "/reference/encdec/marian-spm";
  QFile::copy(weights + "/model.safetensors", dir + "/model.safetensors");
  nlohmann::json c = readJsonFile(weights.toStdString() + "/config.json");
  c["max_position_embeddings"] = kPositions;
  QFile f(dir + "/config.json");
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(QByteArray::fromStdString(c.dump()));
  f.close();
  const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/marian";
  for (const QString& name : QDir(spm).entryList(QDir::Files)) QFile::copy(spm + "/" + name, dir + "/" + name);
  return dir;
}

QString message(TooLongBar* bar) { return bar->findChild<QLabel*>("tooLongMessage")->text(); }

const EncDecRun* lastRun(MainWindow& w) {
  const ResultPtr r = w.controller()->lastResult();
  return r ? encDecRunOf(*r) : nullptr;
}

bool endsWith(const std::string& s, const std::string& end) {
  return end.size() <= s.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

class TestEncDecTooLong : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void keepsTheEndOfTheTextTooLong() {
    QTemporaryDir tmp;
    const QString dir = makeShortMarian(tmp);
    QVERIFY(!dir.isEmpty());
    const auto model = openEncDecModel(dir.toStdString());
    const std::string longText = "the attention head looks back at earlier tokens and the head looks back";
    const std::string shortText = "the head looks";
    const std::vector<int> srcIds = model->tokenizeSource(longText).ids;  // text ids, then eos
    const std::vector<int> tgtIds = model->tokenizeTarget(longText).ids;  // start token, then text ids
    QVERIFY(static_cast<int>(srcIds.size()) > kPositions + 2);
    QVERIFY(static_cast<int>(model->tokenizeSource(shortText).ids.size()) < kPositions);

    MainWindow w(false);
    w.resize(1280, 720);
    w.show();
    Params p = w.controller()->params();
    p.sentence = longText;
    p.target = shortText;
    w.applyParams(p);
    w.modelOpener()->open(dir);
    TooLongBar* bar = w.tooLongBar();

    // The source is too long: named, with both lengths; the target is left alone.
    QTRY_VERIFY_WITH_TIMEOUT(bar->isVisible(), 20000);
    QVERIFY2(message(bar).contains("source has " + QString::number(srcIds.size()) + " tokens") &&
                 message(bar).contains(QString::number(kPositions) + " positions"),
             qPrintable(message(bar)));
    QCOMPARE(bar->keepButton()->text(), QString("Keep the source's last %1 tokens").arg(kPositions));
    QTest::mouseClick(bar->keepButton(), Qt::LeftButton);
    const std::string keptSource = w.controller()->params().sentence;
    QVERIFY(keptSource.size() < longText.size() && endsWith(longText, keptSource));
    QCOMPARE(w.controller()->params().target, shortText);
    QTRY_VERIFY_WITH_TIMEOUT(lastRun(w) && w.controller()->lastResult()->params.sentence == keptSource, 20000);
    QTRY_VERIFY(!bar->isVisible());
    // The run read the whole source's last kPositions tokens (its eos last).
    QCOMPARE(lastRun(w)->source.ids, std::vector<int>(srcIds.end() - kPositions, srcIds.end()));
    w.history()->stack()->undo();
    QCOMPARE(w.controller()->params().sentence, longText);
    QTRY_VERIFY(bar->isVisible() && message(bar).contains("source"));  // refused again, offered again
    w.history()->stack()->redo();
    QTRY_VERIFY_WITH_TIMEOUT(lastRun(w) && !bar->isVisible(), 20000);

    // The target is too long: named (its count with the start token); the button keeps one token fewer than the
    // positions, the start token's place.
    p = w.controller()->params();
    p.target = longText;
    w.applyParams(p);
    QTRY_VERIFY_WITH_TIMEOUT(bar->isVisible(), 20000);
    QVERIFY2(message(bar).contains("target has " + QString::number(tgtIds.size()) + " tokens"),
             qPrintable(message(bar)));
    QCOMPARE(bar->keepButton()->text(), QString("Keep the target's last %1 tokens").arg(kPositions - 1));
    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty())
      w.grab().save(shots + "/encdec_too_long_target.png");
    QTest::mouseClick(bar->keepButton(), Qt::LeftButton);
    const std::string keptTarget = w.controller()->params().target;
    QVERIFY(keptTarget.size() < longText.size() && endsWith(longText, keptTarget));
    QCOMPARE(w.controller()->params().sentence, keptSource);
    QTRY_VERIFY_WITH_TIMEOUT(lastRun(w) && w.controller()->lastResult()->params.target == keptTarget, 20000);
    QTRY_VERIFY(!bar->isVisible());
    QCOMPARE(w.targetBar()->editor()->text().toStdString(), keptTarget);
    // The decoder read its start token, then the whole target's last kPositions − 1 tokens.
    std::vector<int> expected = {tgtIds.front()};
    expected.insert(expected.end(), tgtIds.end() - (kPositions - 1), tgtIds.end());
    QCOMPARE(lastRun(w)->target.ids, expected);
    w.history()->stack()->undo();
    QCOMPARE(w.controller()->params().target, longText);
    QTRY_VERIFY(bar->isVisible() && message(bar).contains("target"));
  }
};

ATTNLAB_TEST_MAIN(TestEncDecTooLong)
#include "test_encdec_too_long.moc"
