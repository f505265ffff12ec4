// Titles and axis titles fit the plot they sit on: shrink to ¾ of their size, then wrap, then elide — three lines at
// most for a title, two for an axis title (ui/plots/plot_fitting.cpp).
#include <qcustomplot.h>
#include <QApplication>
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/plots/plot_fitting.h"

using namespace attnlab::ui;

class TestPlotFitting : public QObject {
  Q_OBJECT

  /// A 220 × 180 plot with `title` above it and `xLabel` under its x axis, fitted and drawn.
  static std::unique_ptr<QCustomPlot> plotWith(const QString& title, const QString& xLabel) {
    auto plot = std::make_unique<QCustomPlot>();
    plot->setAttribute(Qt::WA_DontShowOnScreen);
    plot->resize(220, 180);
    plot->show();  // a hidden widget gets its resize event (and so its viewport) only when shown
    plot->plotLayout()->insertRow(0);
    QFont font = plot->font();
    font.setPointSizeF(12);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot.get(), title, font));
    plot->xAxis->setLabel(xLabel);
    QFont labelFont = plot->xAxis->labelFont();
    labelFont.setPointSizeF(10);
    plot->xAxis->setLabelFont(labelFont);
    fitPlotToSize(plot.get());
    settlePlot(plot.get());
    return plot;
  }

  static QCPTextElement* titleOf(QCustomPlot* plot) {
    return qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
  }

 private slots:
  void shortTextsStayAsTheViewSetThem() {
    auto plot = plotWith("Layer 1", "key");
    QCOMPARE(plot->viewport().width(), 220);  // the size every case below fits into
    QCOMPARE(titleOf(plot.get())->text(), QString("Layer 1"));
    QCOMPARE(titleOf(plot.get())->font().pointSizeF(), 12.0);
    QCOMPARE(plot->xAxis->label(), QString("key"));
  }

  void aLongTitleShrinksWrapsAndStopsAtThreeLines() {
    const QString words = QStringLiteral("attention of every head in every layer of the model for the sentence typed");
    auto plot = plotWith(words + " " + words + " " + words, "key");
    const QCPTextElement* title = titleOf(plot.get());
    QCOMPARE(title->font().pointSizeF(), 9.0);  // ¾ of 12: it shrank as far as it may before wrapping
    const QStringList lines = title->text().split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY2(lines.last().endsWith(QChar(0x2026)), qPrintable(lines.last()));  // what was cut is marked
    const QFontMetrics fm(title->font());
    for (const QString& line : lines) QVERIFY2(fm.horizontalAdvance(line) <= 220 - 8, qPrintable(line));
  }

  void aLongAxisTitleWrapsOntoTwoLinesAtMost() {
    const QString label = QStringLiteral(
        "position of the key token in the sentence, counted from the first token "
        "including the beginning-of-sequence marker");
    auto plot = plotWith("Layer 1", label);
    const QStringList lines = plot->xAxis->label().split('\n');
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines.last().endsWith(QChar(0x2026)), qPrintable(lines.last()));
    QCOMPARE(plot->xAxis->labelFont().pointSizeF(), 7.5);
  }

  void aNewTextFromTheViewIsFittedAfresh() {
    auto plot = plotWith(QString(60, 'x') + " " + QString(60, 'y'), "key");
    titleOf(plot.get())->setText("Layer 2");
    settlePlot(plot.get());
    QCOMPARE(titleOf(plot.get())->text(), QString("Layer 2"));
  }
};

ATTNLAB_TEST_MAIN(TestPlotFitting)
#include "test_plot_fitting.moc"
