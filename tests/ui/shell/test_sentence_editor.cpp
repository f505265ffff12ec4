// The multi-line sentence editor and File ▸ Open text… (issue 31): a page keeps its line breaks, as --sentence-file
// does; Enter inserts a newline, the editor grows to a few lines; a text file becomes the sentence, and a file that is
// not UTF-8 text (invalid bytes, a binary, a huge one) gets a message naming the file and the problem.
#include <QFile>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <algorithm>

#include "tests/harness/test_registry.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/param_history.h"
#include "ui/shell/sentence_editor.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(bytes);
  return path;
}

}  // namespace

class TestSentenceEditor : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void enterInsertsALineBreakThatReachesTheModel() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(w.controller()->lastResult());
    SentenceEditor* editor = w.sentenceEditor();
    QCOMPARE(editor->visibleLines(), 1);
    const int oneLine = editor->height();
    editor->setFocus();
    editor->end(false);
    QTest::keyClick(editor, Qt::Key_Return);
    QTest::keyClicks(editor, "a second line");
    QTest::keyClick(editor, Qt::Key_Return);
    QTest::keyClicks(editor, "and a third");
    const std::string expected = "the cat walks on the street\na second line\nand a third";
    QCOMPARE(w.controller()->params().sentence, expected);
    QCOMPARE(editor->visibleLines(), 3);
    QVERIFY2(editor->height() > 2 * oneLine, qPrintable(QString("%1 vs %2").arg(editor->height()).arg(oneLine)));
    QTRY_COMPARE(w.controller()->lastResult()->params.sentence, expected);
    // The line breaks separate words: 6 + 3 + 3 tokens ("street" and "a" were one word "streeta").
    const std::vector<std::string>& tokens = w.controller()->lastResult()->trace().tokens;
    QCOMPARE(tokens.size(), std::size_t(12));
    QCOMPARE(tokens[5], std::string("street"));
    QCOMPARE(tokens[6], std::string("a"));
    QCOMPARE(tokens.back(), std::string("third"));
    // Ten lines: the editor stops growing at five and scrolls.
    for (const char* line : {"4", "5", "6", "7", "8", "9", "10"}) {
      QTest::keyClick(editor, Qt::Key_Return);
      QTest::keyClicks(editor, line);
    }
    QCOMPARE(editor->visibleLines(), SentenceEditor::kMaxLines);
    if (const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS"); !shots.isEmpty()) {
      w.resize(1280, 720);
      QTest::qWait(200);
      w.grab().save(shots + "/sentence_editor.png");
    }
    QVERIFY(editor->height() < w.height() / 3);  // the views keep the room
  }

  void openingATextMakesItTheSentence() {
    QTemporaryDir dir;
    const QString page = writeFile(dir, "page.txt", "Erste Zeile: Grüße.\r\nzweite Zeile\n");
    QString error;
    const QString text = SentenceEditor::readTextFile(page, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(text, QString::fromUtf8("Erste Zeile: Grüße.\nzweite Zeile\n"));  // CRLF read as one line break
    QCOMPARE(SentenceEditor::readTextFile(writeFile(dir, "bom.txt", "\xEF\xBB\xBFhello"), &error), QString("hello"));

    MainWindow w(false);
    w.show();
    QTRY_VERIFY(w.controller()->lastResult());
    const std::string before = w.controller()->params().sentence;
    const QList<QAction*> actions = w.findChildren<QAction*>();
    QVERIFY(std::any_of(actions.begin(), actions.end(), [](QAction* a) { return a->text() == "Open &text…"; }));
    w.openText(page);  // what File ▸ Open text… does with the chosen file
    QTRY_COMPARE(w.sentenceEditor()->text(), text);
    QCOMPARE(QString::fromStdString(w.controller()->params().sentence), text);
    w.history()->stack()->undo();  // one undoable edit
    QCOMPARE(w.controller()->params().sentence, before);
    QCOMPARE(w.sentenceEditor()->text().toStdString(), before);
    // A file that is not text: a message, the sentence stays.
    w.openText(writeFile(dir, "latin1.txt",
                         "Gr\xFC\xDF"
                         "e"));
    QTRY_VERIFY(w.findChild<QMessageBox*>("textError"));
    QVERIFY(w.findChild<QMessageBox*>("textError")->text().contains("latin1.txt is not UTF-8 text"));
    QCOMPARE(w.controller()->params().sentence, before);
  }

  void filesThatAreNotTextGetAMessage() {
    QTemporaryDir dir;
    QString error;
    // Latin-1 "Grüße": byte 3 (0xFC) starts no UTF-8 character.
    QVERIFY(SentenceEditor::readTextFile(writeFile(dir, "latin1.txt",
                                                   "Gr\xFC\xDF"
                                                   "e"),
                                         &error)
                .isEmpty());
    QCOMPARE(error, QString("latin1.txt is not UTF-8 text: byte 2 (0xfc) starts no UTF-8 character. Save it as UTF-8 "
                            "and open it again."));
    QVERIFY(SentenceEditor::readTextFile(writeFile(dir, "image.png", QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16)),
                                         &error)
                .isEmpty());
    QVERIFY2(error.contains("image.png is not a text file: it holds a NUL byte at byte 8"), qPrintable(error));
    QVERIFY(SentenceEditor::readTextFile(writeFile(dir, "blank.txt", " \n\t\n"), &error).isEmpty());
    QCOMPARE(error, QString("blank.txt holds no text"));
    // Larger than the limit (2 MB here; the editor's is 16 MB): refused with both sizes, nothing read.
    const QString big = writeFile(dir, "big.txt", QByteArray(3 << 20, 'a'));
    QVERIFY(SentenceEditor::readTextFile(big, &error, std::size_t(2) << 20).isEmpty());
    QVERIFY2(error.contains("big.txt") && error.contains("3 MB") && error.contains("2 MB"), qPrintable(error));
    QVERIFY(SentenceEditor::readTextFile(dir.filePath("missing.txt"), &error).isEmpty());
    QVERIFY2(error.contains("missing.txt"), qPrintable(error));
    QVERIFY(SentenceEditor::readTextFile(dir.path(), &error).isEmpty());  // a folder
    QVERIFY(!error.isEmpty());
    // A byte-order mark alone is no text either; an old Mac file's lone CRs are line breaks.
    QVERIFY(SentenceEditor::readTextFile(writeFile(dir, "bom.txt", "\xEF\xBB\xBF"), &error).isEmpty());
    QCOMPARE(error, QString("bom.txt holds no text"));
    QCOMPARE(SentenceEditor::readTextFile(writeFile(dir, "mac.txt", "one\rtwo\r\nthree"), &error),
             QString("one\ntwo\nthree"));
  }

  void theTextComesBackAsTyped() {
    // No-break spaces and line separators stay what they are (toPlainText() made them spaces and line breaks, and
    // the editor's text then differed from the sentence the program ran).
    SentenceEditor editor;
    const QString text = QString("a") + QChar(0x00A0) + "b" + QChar(0x2028) + "c\nd";
    editor.setText(text);
    QCOMPARE(editor.text(), text);
  }

  void aLongParagraphGetsEveryLine() {
    // One paragraph past 4,000 characters wraps past the five lines: it gets all five, not one.
    SentenceEditor editor;
    editor.resize(600, 40);
    editor.show();
    editor.setText(QString("word ").repeated(900));
    QCOMPARE(editor.visibleLines(), SentenceEditor::kMaxLines);
    editor.setText("short");
    QCOMPARE(editor.visibleLines(), 1);
  }
};

ATTNLAB_TEST_MAIN(TestSentenceEditor)
#include "test_sentence_editor.moc"
