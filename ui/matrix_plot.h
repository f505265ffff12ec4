#pragma once
// One matrix as a heatmap: token labels on both axes (rows top to bottom), no interpolation, a
// colour scale, and the value under the cursor. The building block of every matrix view.
#include <QStringList>

#include <qcustomplot.h>

#include "core/tensor.h"
#include "ui/colormaps.h"

namespace attnlab::ui {

class MatrixPlot : public QCustomPlot {
  Q_OBJECT
 public:
  /// How the colour range follows the data: attention weights live in [0, 1]; scores and
  /// differences are signed and get a range symmetric about 0 (for the diverging map). Fixed: a
  /// range set by setFixedRange, e.g. one scale shared by several plots.
  enum class Range { Data, UnitInterval, Symmetric, Fixed };

  explicit MatrixPlot(QWidget* parent = nullptr);

  void setMatrix(const Mat& m, const QStringList& rowLabels, const QStringList& colLabels);
  void setTitle(const QString& title);
  void setAxisTitles(const QString& rows, const QString& cols);
  void setColorMap(ColorMap map);
  void setRangeMode(Range mode);
  /// Switches to Range::Fixed with [lo, hi].
  void setFixedRange(double lo, double hi);
  void setColorScaleVisible(bool visible);
  /// Larger fonts for projection; 1 is the default size.
  void setFontScale(double scale);

  const Mat& matrix() const { return data_; }
  /// Small, so that grids of plots fit any window or figure size; labels thin out to fit.
  QSize minimumSizeHint() const override { return {90, 70}; }
  int rows() const { return static_cast<int>(data_.rows()); }
  int cols() const { return static_cast<int>(data_.cols()); }

 signals:
  void cellHovered(int row, int col, double value);  ///< row −1 when the cursor leaves
  void cellClicked(int row, int col);

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  bool cellAt(const QPointF& pos, int* row, int* col) const;
  void updateTicks();
  void updateColorRange();
  /// Colours, line widths and theme from ViewStyle (colour-map choice, dark theme, presentation).
  void applyStyle();

  QCPColorMap* map_;
  QCPColorScale* scale_;
  QCPTextElement* title_;
  QSize tickedSize_;  ///< the axis rect size the tick labels were thinned for
  Mat data_;
  QStringList rowLabels_, colLabels_;
  Range rangeMode_ = Range::Data;
  double fixedLo_ = 0, fixedHi_ = 1;
  ColorMap requestedMap_ = ColorMap::Viridis;
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
