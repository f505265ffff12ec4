// The export dialog as a user fills it (offscreen): the format follows the typed extension and the
// extension the chosen format, a name that is not an export format gets one, labels show no literal
// '&', and the folder of the last export is where the next one starts.
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/shell/export_dialog.h"
#include "ui/shell/live_controller.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestExportDialog : public QObject {
  Q_OBJECT

  static QLineEdit* pathEdit(ExportDialog& d) { return d.findChild<QLineEdit*>(); }
  static QComboBox* formatBox(ExportDialog& d) {
    for (QComboBox* c : d.findChildren<QComboBox*>())
      if (c->findData("pdf") >= 0) return c;
    return nullptr;
  }
  static void typePath(ExportDialog& d, const QString& path) {
    pathEdit(d)->selectAll();
    QTest::keyClicks(pathEdit(d), path);
  }
  static void selectFormat(ExportDialog& d, const QString& format) {
    formatBox(d)->setCurrentIndex(formatBox(d)->findData(format));
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // settings in a test location, never the user's
    QCoreApplication::setOrganizationName("AttentionLabTests");
    QCoreApplication::setApplicationName("test_export_dialog");
  }
  void init() { QSettings().remove("export"); }

  void aTypedExtensionChoosesTheFormat() {
    QTemporaryDir dir;
    ExportDialog d("heatmap", QSize(480, 360), {});
    selectFormat(d, "pdf");
    typePath(d, dir.filePath("figure.png"));
    QCOMPARE(formatBox(d)->currentData().toString(), QString("png"));
    QCOMPARE(pathEdit(d)->text(), dir.filePath("figure.png"));  // the name stays as typed
    const ExportRequest r = d.request();
    QCOMPARE(r.format, QString("png"));
    QCOMPARE(r.path, dir.filePath("figure.png"));
    const ResultPtr result = LiveController::compute(Params{}, nullptr, {});
    QVERIFY(result->ok());
    QCOMPARE(exportView(result, r), QString());
    QFile f(r.path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.read(8), QByteArray("\x89PNG\r\n\x1a\n", 8));  // a PNG, not a PDF named .png
  }

  void aChosenFormatChangesTheExtension() {
    QTemporaryDir dir;
    ExportDialog d("heatmap", QSize(480, 360), {});
    typePath(d, dir.filePath("my.figure.png"));
    selectFormat(d, "svg");
    QCOMPARE(pathEdit(d)->text(), dir.filePath("my.figure.svg"));
    selectFormat(d, "csv");
    QCOMPARE(d.request().path, dir.filePath("my.figure.csv"));
  }

  void anUnknownExtensionGetsTheFormatsAndSaysSo() {
    QTemporaryDir dir;
    ExportDialog d("heatmap", QSize(480, 360), {});
    selectFormat(d, "pdf");
    typePath(d, dir.filePath("notes.v2"));
    QCOMPARE(formatBox(d)->currentData().toString(), QString("pdf"));
    QCOMPARE(d.request().path, dir.filePath("notes.v2.pdf"));
    bool said = false;
    for (QLabel* l : d.findChildren<QLabel*>())
      said = said || (l->text().contains("not an export format") && l->text().contains("notes.v2.pdf"));
    QVERIFY(said);
  }

  void labelsShowNoLiteralAmpersand() {
    // A QLabel draws '&' as a mnemonic underline only when it has a buddy; without one the '&' is shown.
    ExportDialog d("heatmap", QSize(480, 360), {});
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    int mnemonics = 0;
    for (QLabel* l : d.findChildren<QLabel*>()) {
      if (!l->text().contains('&') || l->textFormat() == Qt::RichText) continue;
      ++mnemonics;
      QVERIFY2(l->buddy() != nullptr, qPrintable("label '" + l->text() + "' shows its '&'"));
    }
    QVERIFY(mnemonics >= 5);  // Format, DPI, scale, font scale, matrix, file
    bool fileLabel = false;
    for (QLabel* l : d.findChildren<QLabel*>()) fileLabel = fileLabel || (l->buddy() == pathEdit(d));
    QVERIFY(fileLabel);
  }

  void theLastFolderIsRemembered() {
    QTemporaryDir dir;
    {
      ExportDialog d("heatmap", QSize(480, 360), {});
      typePath(d, dir.filePath("first.svg"));
      d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
      QCOMPARE(d.result(), int(QDialog::Accepted));
    }
    ExportDialog d("model", QSize(480, 360), {});
    QCOMPARE(pathEdit(d)->text(), QDir(dir.path()).filePath("model.svg"));  // folder and format remembered
    typePath(d, "second.png");                                              // a bare name goes to that folder
    QCOMPARE(d.request().path, QDir(dir.path()).filePath("second.png"));
    QCOMPARE(ExportDialog::lastFolder(), dir.path());
  }
};

ATTNLAB_TEST_MAIN(TestExportDialog)
#include "test_export_dialog.moc"
