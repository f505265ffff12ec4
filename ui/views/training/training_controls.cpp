#include "ui/views/training/training_controls.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>

#include <qcustomplot.h>

#include "ui/plots/figure_export.h"

namespace attnlab::ui {

QLabel* makeHeadline() {
  auto* label = new QLabel;
  label->setWordWrap(true);
  QFont f = label->font();
  f.setPointSizeF(f.pointSizeF() * 1.2);
  f.setBold(true);
  label->setFont(f);
  return label;
}

QComboBox* makeDModelBox(int value) {
  auto* box = new QComboBox;
  for (int d : {16, 32, 64, 128}) box->addItem(QString::number(d), d);
  box->setCurrentText(QString::number(value));
  return box;
}

QDoubleSpinBox* makeLearningRateBox(double value, double singleStep) {
  auto* box = new QDoubleSpinBox;
  box->setDecimals(4);
  box->setRange(0.0001, 0.1);
  box->setSingleStep(singleStep);
  box->setValue(value);
  return box;
}

QSpinBox* makeSeedBox(int value) {
  auto* box = new QSpinBox;
  box->setRange(0, 1000000);
  box->setValue(value);
  return box;
}

QSpinBox* makeStepLimitBox(int value) {
  auto* box = new QSpinBox;
  box->setRange(1, 1000000);
  box->setValue(value);
  box->setToolTip(QCoreApplication::translate("TrainingControls",
                                              "Training stops here (press Train again after raising it to go on)."));
  return box;
}

QWidget* makeControlsColumn(QFormLayout* form, QGridLayout* buttons, QLabel* status) {
  auto* column = new QWidget;
  auto* layout = new QVBoxLayout(column);
  layout->addLayout(form);
  layout->addLayout(buttons);
  status->setWordWrap(true);
  layout->addWidget(status);
  layout->addStretch(1);
  column->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Preferred);  // as wide as its fields, at every font size
  column->setProperty(kScreenOnlyProperty, true);                       // a figure of the run holds no controls
  return column;
}

void layOutTrainingPage(QWidget* page, QWidget* controls, QLabel* headline, QWidget* plots) {
  auto* right = new QWidget;
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(headline);
  rightLayout->addWidget(plots, 1);
  auto* layout = new QHBoxLayout(page);
  layout->addWidget(controls);
  layout->addWidget(right, 1);
}

void setPlotFontScale(QCustomPlot* plot, double scale) {
  QFont f = plot->xAxis->labelFont();
  f.setPointSizeF(QFont().pointSizeF() * scale);
  for (QCPAxis* a : plot->axisRect()->axes()) a->setLabelFont(f), a->setTickLabelFont(f);
  plot->replot();
}

int trainingThreads() { return std::max(1, QThread::idealThreadCount() - 1); }

}  // namespace attnlab::ui
