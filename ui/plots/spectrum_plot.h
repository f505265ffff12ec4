#pragma once
// Plot widgets shared by the spectra views: singular values on a log scale with numerical-rank
// thresholds, eigenvalues in the complex plane with the unit circle, and small helpers for titled
// line plots. All are QCustomPlots, so figure export keeps them as vectors.
#include <QColor>
#include <QString>
#include <complex>
#include <vector>

#include <qcustomplot.h>

#include "core/base/tensor.h"

namespace attnlab::ui {

/// Colours of the series the spectra views share: softmax/attention, then the feature maps
/// 1+elu, exp, relu, performer (index into featureMaps() + 1), then extra series.
QColor seriesColor(int index);

/// A QCustomPlot with a title row and font scaling; base of the plots below.
class TitledPlot : public QCustomPlot {
  Q_OBJECT
 public:
  explicit TitledPlot(QWidget* parent = nullptr);
  void setTitle(const QString& title);
  void setFontScale(double scale);
  /// A line+marker series (lsNone when `markers` only).
  QCPGraph* addSeries(const QString& name, const QVector<double>& x, const QVector<double>& y, const QColor& color,
                      bool line = true, bool markers = true, Qt::PenStyle style = Qt::SolidLine);
  /// A vertical marker line at x with a text label at its top.
  void addVerticalMarker(double x, const QString& label, const QColor& color);
  /// Removes all graphs, curves and items (keeps axes, title, legend).
  void clearAll();
  /// Shows `text` in the middle of an otherwise empty plot, without title (no data yet, on-demand, an
  /// error).
  void showMessage(const QString& text);

 protected:
  QCPTextElement* title_;
  double fontScale_ = 1.0;
};

/// Singular values σ_1 ≥ σ_2 ≥ … against their index, log y axis, each set with its numerical-rank
/// threshold σ_max·max(rows, cols)·ε as a dashed line of the same colour. Zeros (which a log axis
/// cannot show) are drawn at the bottom edge.
class SingularValuePlot : public TitledPlot {
  Q_OBJECT
 public:
  explicit SingularValuePlot(QWidget* parent = nullptr);
  void addSpectrum(const QString& name, const VecD& sv, double threshold, const QColor& color);
  /// Sets the y range from every σ and threshold shown (call after the last addSpectrum).
  void fitRanges();

 private:
  std::vector<VecD> shown_;
  std::vector<double> thresholds_;
};

/// Eigenvalues in the complex plane, the unit circle dashed, equal scales on both axes.
class EigenvaluePlot : public TitledPlot {
  Q_OBJECT
 public:
  explicit EigenvaluePlot(QWidget* parent = nullptr);
  void setEigenvalues(const std::vector<std::complex<double>>& ev);

 private:
  void drawCircle();
  void fitEqualScales();
  double radius_ = 1.0;
};

}  // namespace attnlab::ui
