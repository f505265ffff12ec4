// Export figure of the Training view's encoder–decoder tab (issue 33): Ctrl+E there writes that tab's figure (it
// said "no export yet"): the loss and held-out accuracy curves and the decoder's cross maps on the probe, titled with
// the task and the step, at a preset's size. The content is the panel's: the SVG names the task, the step and the
// alignment scores of the trained run; the PNG of a trained run differs from a fresh untrained panel's. The numbers
// (CSV/JSON/NPY) are the run's: every loss, each head's score, each cross map with the probe's tokens. An empty tab
// and a bad size give messages. Training is bounded by steps, never timed. With ATTNLAB_LAYOUT_SHOTS set
// to a folder, the slide PNGs are kept there to look at.
#include <QDialogButtonBox>
#include <QFile>
#include <QImage>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/harness/test_registry.h"
#include "ui/shell/export_dialog.h"
#include "ui/shell/main_window.h"
#include "ui/shell/training_export.h"
#include "ui/views/training/encdec_training_panel.h"
#include "ui/views/training/training_view.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

int step(const EncDecTrainingPanel& p) { return p.lastUpdate() ? p.lastUpdate()->snapshot.step : -1; }

/// Trains `p` (shown) from its fresh model to `steps`.
bool trainTo(EncDecTrainingPanel& p, int steps) {
  if (!QTest::qWaitFor([&] { return step(p) == 0; }, 30000)) return false;
  p.stepsBox()->setValue(steps);
  QTest::mouseClick(p.trainButton(), Qt::LeftButton);
  return QTest::qWaitFor([&] { return step(p) == steps && p.trainButton()->text() == "Train"; }, 120000);
}

bool white(QRgb c) { return qRed(c) >= 250 && qGreen(c) >= 250 && qBlue(c) >= 250; }

double inkFraction(const QImage& img) {
  qint64 ink = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) ink += !white(img.pixel(x, y));
  return double(ink) / (double(img.width()) * img.height());
}

/// The fraction of pixels whose colour differs by more than 24 in some channel.
double differingFraction(const QImage& a, const QImage& b) {
  qint64 n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
      n += std::abs(qRed(p) - qRed(q)) > 24 || std::abs(qGreen(p) - qGreen(q)) > 24 ||
           std::abs(qBlue(p) - qBlue(q)) > 24;
    }
  return double(n) / (double(a.width()) * a.height());
}

}  // namespace

class TestEncDecTrainingExport : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  ExportRequest request(const QString& name, const QString& format, const QString& preset, double dpi) {
    ExportRequest r;
    r.view = kTrainingExportName;
    r.format = format;
    r.path = dir_.filePath(name + "." + format);
    r.size = *figurePreset(preset, dpi);
    return r;
  }

  static void keepShot(const QString& path) {
    const QString shots = qEnvironmentVariable("ATTNLAB_LAYOUT_SHOTS");
    if (shots.isEmpty()) return;
    QFile::remove(shots + "/" + QFileInfo(path).fileName());
    QFile::copy(path, shots + "/" + QFileInfo(path).fileName());
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("AttentionLabTests");
    QVERIFY(dir_.isValid());
  }

  void theFigureIsThePanelsRunAtThePresetsSize() {
    EncDecTrainingPanel fresh, trained;
    for (EncDecTrainingPanel* p : {&fresh, &trained}) p->resize(1100, 650), p->show();
    QTRY_COMPARE(step(fresh), 0);
    QVERIFY(trainTo(trained, 300));
    const EncDecTrainingRun run = trained.run();
    QVERIFY(run.latest);
    QCOMPARE(static_cast<int>(run.losses.size()), 300);
    QVERIFY(run.accuracy.size() >= 2);  // step 0 and at least the last update
    QCOMPARE(run.accuracy.front().first, 0);
    QCOMPARE(run.accuracy.back().first, 300);

    for (const QString preset : {"slide-16x9", "slide-4x3", "column", "page"}) {
      // PNG at 150 dpi: the preset's centimetres at 150 pixels per inch.
      const ExportRequest r = request("encdec-" + preset, "png", preset, 150);
      QCOMPARE(exportEncDecTraining(run, r), QString());
      const QImage img(r.path);
      QVERIFY(!img.isNull());
      const QSize expected(qRound(r.size.width / 2.54 * 150), qRound(r.size.height / 2.54 * 150));
      QVERIFY2(std::abs(img.width() - expected.width()) <= 1 && std::abs(img.height() - expected.height()) <= 1,
               qPrintable(QString("%1 × %2").arg(img.width()).arg(img.height())));
      keepShot(r.path);
      const double ink = inkFraction(img);
      QVERIFY2(ink > 0.05, qPrintable(QString::number(ink)));  // curves, maps, text: not a blank page

      // The same export of a fresh, untrained panel: other curves, other maps.
      const ExportRequest f = request("encdec-untrained-" + preset, "png", preset, 150);
      QCOMPARE(exportEncDecTraining(fresh.run(), f), QString());
      const QImage untrained(f.path);
      QCOMPARE(untrained.size(), img.size());
      const double differs = differingFraction(img, untrained);
      qInfo("%s: ink %.3f, differs from untrained %.3f", qPrintable(preset), ink, differs);
      QVERIFY2(differs > 0.02, qPrintable(QString::number(differs)));
    }

    // The SVG names the task and the step (title and headline) and carries each head's alignment score.
    const ExportRequest svg = request("encdec", "svg", "slide-16x9", 96);
    QCOMPARE(exportEncDecTraining(run, svg), QString());
    QFile file(svg.path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY(text.contains("<title>Training: encoder–decoder, reverse, step 300</title>"));
    QVERIFY(text.contains("reverse, step 300"));
    QVERIFY(text.contains("width=\"254mm\""));  // 25.4 cm
    const auto& a = run.latest->snapshot.alignment;
    for (std::size_t l = 0; l < a.size(); ++l)
      for (std::size_t h = 0; h < a[l].size(); ++h)
        QVERIFY2(text.contains(QString("anti-diagonal %1").arg(a[l][h], 0, 'f', 2)),
                 qPrintable(QString::number(a[l][h])));

    const ExportRequest pdf = request("encdec", "pdf", "slide-4x3", 96);
    QCOMPARE(exportEncDecTraining(run, pdf), QString());
    QFile pdfFile(pdf.path);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QCOMPARE(pdfFile.read(5), QByteArray("%PDF-"));
  }

  // The numbers behind the figure: every loss and accuracy point of the run, each head's score, each cross map
  // with the probe's tokens ("a … j </s>" reversed) as labels.
  void theNumbersAreTheRuns() {
    EncDecTrainingPanel p;
    p.show();
    QVERIFY(trainTo(p, 60));
    const EncDecTrainingRun run = p.run();
    const ExportRequest json = request("encdec", "json", "slide-16x9", 96);
    QCOMPARE(exportEncDecTraining(run, json), QString());
    QFile file(json.path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const nlohmann::json j = nlohmann::json::parse(file.readAll().toStdString());
    QCOMPARE(j["params"]["task"].get<std::string>(), std::string("reverse"));
    QCOMPARE(j["params"]["step"].get<int>(), 60);
    std::map<std::string, nlohmann::json> m;
    for (const auto& x : j["matrices"]) m[x["name"].get<std::string>()] = x;
    QCOMPARE(m.size(), std::size_t(5));  // loss, accuracy, alignment, cross_L0H0, cross_L0H1
    QCOMPARE(m["loss"]["values"].size(), std::size_t(60));
    for (std::size_t i = 0; i < 60; ++i) {
      QCOMPARE(m["loss"]["rows"][i].get<std::string>(), std::to_string(i + 1));
      QCOMPARE(m["loss"]["values"][i][0].get<double>(), run.losses[i].second);
    }
    QCOMPARE(m["accuracy"]["values"].size(), run.accuracy.size());
    QCOMPARE(m["accuracy"]["values"].back()[0].get<double>(), run.latest->snapshot.heldOut.accuracy);
    QCOMPARE(m["alignment"]["cols"][0].get<std::string>(), std::string("anti_diagonal"));
    const std::vector<std::string> target{"</s>", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a"};
    const std::vector<std::string> source{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "</s>"};
    for (int h = 0; h < 2; ++h) {
      const std::string name = "cross_L0H" + std::to_string(h);
      QCOMPARE(m["alignment"]["rows"][h].get<std::string>(), "L0H" + std::to_string(h));
      QCOMPARE(m["alignment"]["values"][h][0].get<double>(), run.latest->snapshot.alignment[0][h]);
      QCOMPARE(m[name]["rows"].get<std::vector<std::string>>(), target);
      QCOMPARE(m[name]["cols"].get<std::vector<std::string>>(), source);
      const Eigen::MatrixXf& drawn = p.drawnCross()[0][static_cast<std::size_t>(h)];
      for (int r = 0; r < 11; ++r)
        for (int c = 0; c < 11; ++c) QCOMPARE(m[name]["values"][r][c].get<double>(), double(drawn(r, c)));
    }

    ExportRequest npy = request("encdec-cross", "npy", "slide-16x9", 96);
    npy.matrix = "cross_L0H1";
    QCOMPARE(exportEncDecTraining(run, npy), QString());
    QVERIFY(QFileInfo(npy.path).size() > 11 * 11 * 8);  // 121 doubles and the header
    npy.matrix.clear();                                 // all: the matrices' shapes differ, so there is no one array
    npy.path = dir_.filePath("encdec-all.npy");
    QVERIFY(!exportEncDecTraining(run, npy).isEmpty());
    QVERIFY(!QFile::exists(npy.path));
  }

  void anEmptyTabAndABadSizeAreMessages() {
    EncDecTrainingPanel p;
    p.show();
    QTRY_COMPARE(step(p), 0);
    const ExportRequest png = request("encdec-none", "png", "slide-16x9", 96);
    QVERIFY(exportEncDecTraining(EncDecTrainingRun{}, png).contains("nothing to export"));
    QVERIFY(!QFile::exists(png.path));
    ExportRequest tiny = png;
    tiny.size = FigureSize{10, 10, FigureSize::Unit::Pixels, 96};
    QVERIFY(exportEncDecTraining(p.run(), tiny).contains("out of range"));
    QVERIFY(!QFile::exists(tiny.path));
  }

  // Ctrl+E on the encoder–decoder tab opens the export dialog and writes that tab's figure.
  void ctrlEOnTheEncoderDecoderTabExportsIt() {
    MainWindow w(false);
    w.resize(1280, 800);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.showView("training");
    TrainingView* t = w.trainingView();
    t->tabs()->setCurrentWidget(t->encDecPanel());
    QVERIFY(trainTo(*t->encDecPanel(), 20));
    const QString path = dir_.filePath("encdec-from-window.svg");
    QString title;
    QTimer poll;
    poll.setInterval(10);
    connect(&poll, &QTimer::timeout, [&] {
      if (auto* d = qobject_cast<ExportDialog*>(QApplication::activeModalWidget())) {
        title = d->windowTitle();
        d->setPath(path);
        d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
      }
    });
    poll.start();
    QTest::keyClick(&w, Qt::Key_E, Qt::ControlModifier);
    poll.stop();
    QCOMPARE(title, QString("Export training"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(file.readAll()).contains("Training: encoder–decoder, reverse, step 20"));
    QVERIFY2(w.statusBar()->currentMessage().startsWith("Saved Training (encoder–decoder) to"),
             qPrintable(w.statusBar()->currentMessage()));
  }
};

ATTNLAB_TEST_MAIN(TestEncDecTrainingExport)
#include "test_encdec_training_export.moc"
