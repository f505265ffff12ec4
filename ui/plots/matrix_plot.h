#pragma once
// One matrix as a heatmap: token labels on both axes (rows top to bottom), no interpolation, a
// colour bar, and the value under the cursor. The building block of every matrix view. In SVG/PDF
// the cells and the colour bar are vector rectangles (ui/plots/cell_painter.h), never a resampled image.
#include <QStringList>
#include <functional>
#include <tuple>
#include <vector>

#include <qcustomplot.h>

#include "core/base/tensor.h"
#include "ui/plots/attention_scale.h"
#include "ui/plots/colormaps.h"

namespace attnlab::ui {

class MatrixPlot : public QCustomPlot {
  Q_OBJECT
 public:
  /// How the colour range follows the data. UnitInterval is for attention weights and follows
  /// ViewStyle::attentionScale(): [0, 1] (unit), [0, own max] (per-map), [0, setGroupMax] (shared), each row
  /// to its own max (row) or log₁₀ from logFloor(cols) (log); the colour bar's label names it
  /// (ui/plots/attention_scale.h).
  /// Scores and differences are signed and get a range symmetric about 0 (for the diverging map).
  /// Fixed: a range set by setFixedRange, e.g. one scale shared by several plots.
  enum class Range { Data, UnitInterval, Symmetric, Fixed };

  explicit MatrixPlot(QWidget* parent = nullptr);

  void setMatrix(const Mat& m, const QStringList& rowLabels, const QStringList& colLabels);
  /// Lays the axes out for at least rows × cols cells, leaving those beyond the matrix empty: maps of different lengths
  /// side by side then put each position at the same place (the comparison view). 0, 0: the matrix's own size.
  /// Takes effect at the next setMatrix.
  void setExtent(int rows, int cols) { extentRows_ = rows, extentCols_ = cols; }
  void setTitle(const QString& title);
  QString title() const { return title_->text(); }
  void setAxisTitles(const QString& rows, const QString& cols);
  void setColorMap(ColorMap map);
  void setRangeMode(Range mode);
  /// Switches to Range::Fixed with [lo, hi].
  void setFixedRange(double lo, double hi);
  /// With Range::UnitInterval and the shared attention scale: the largest weight over all the maps
  /// shown together (≤ 0: none, the plot's own maximum).
  void setGroupMax(double max);
  /// The row scale divides a row by its largest entry off the diagonal (a similarity map, whose diagonal is 1).
  void setRowMaxSkipsDiagonal(bool skip);
  void setColorScaleVisible(bool visible);
  /// Larger fonts for projection; 1 is the default size, which already grows with the plot (about
  /// 12 pt tick labels in a 1200 × 900 figure, 7 pt in a thumbnail).
  void setFontScale(double scale);
  double tickLabelPointSize() const { return xAxis->tickLabelFont().pointSizeF(); }

  /// The colour range in use and the colour a value is drawn with (tests, legends).
  QCPRange colorRange() const;
  QColor colorOf(double value) const;
  /// The colour cell (row, col) is drawn with (under the row scale it depends on the row, not only the value).
  QColor cellColor(int row, int col) const;
  /// The colour bar's label ("weight", "weight ÷ row max" …; empty outside Range::UnitInterval).
  QString colorBarLabel() const;

  /// Which axes list tokens (the attention map: both; Q/K/V: the rows): pins and the hovered token
  /// are marked there, and a click on a token's label there is reported (tokenLabelClicked).
  void setTokenAxes(bool rows, bool cols);
  /// Pinned tokens get their rows and columns outlined, the hovered token (−1: none) a light band;
  /// drawn with the plot, so figures show them. Indices past the matrix are ignored.
  void setTokenMarks(const std::vector<int>& pinned, int hovered);
  std::vector<int> markedPins() const { return pins_; }
  /// A sliding window of `window` keys (0: none): cells outside it (col ≤ row − window) are shaded "not visible"
  /// (ui/plots/window_shade.h), unlike a weight of 0.
  void setWindow(int window);
  int window() const { return window_; }
  /// Cells drawn crossed out (switched-off heads on the attribution map): (row, col) pairs.
  void setCrossedCells(const std::vector<std::pair<int, int>>& cells);
  const std::vector<std::pair<int, int>>& crossedCells() const { return crossed_; }
  int markedHover() const { return hovered_; }
  /// The column of the hover band: the cell's under the cursor when it is on the hovered token's row, else the
  /// hovered token's own (−1: none).
  int hoverBandColumn() const;
  /// What a cell's tooltip calls it (its value follows on the next line). Default: "query [r] → key [c]" when both
  /// axes are tokens, else "row label · column label".
  void setCellNamer(std::function<QString(int row, int col)> namer);
  /// The row of the cell under the mouse and the token label under it (−1: none).
  int hoveredRow() const { return hoverRow_; }
  int hoveredLabel() const { return labelHover_; }
  /// The token whose axis label is at `pos` (widget coordinates), or −1.
  int tokenLabelAt(const QPointF& pos) const;

  const Mat& matrix() const { return data_; }
  /// Small, so that grids of plots fit any window or figure size; labels thin out to fit.
  QSize minimumSizeHint() const override { return {90, 70}; }
  int rows() const { return static_cast<int>(data_.rows()); }
  int cols() const { return static_cast<int>(data_.cols()); }

 signals:
  void cellHovered(int row, int col, double value);  ///< row −1 when the cursor leaves
  void cellClicked(int row, int col, Qt::KeyboardModifiers modifiers);
  /// A click on a token's label on a token axis.
  void tokenLabelClicked(int token, Qt::KeyboardModifiers modifiers);
  /// The mouse is on a token's label (−1: on none).
  void tokenLabelHovered(int token);

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  bool cellAt(const QPointF& pos, int* row, int* col) const;
  /// Re-reads the cell under the cursor after new data: the read-out names the new tokens, or is
  /// cleared (cellHovered(−1, …)) when the cursor is elsewhere.
  void refreshHover();
  void showHover(int row, int col, const QPoint& globalPos);
  void updateFonts();
  void updateTicks();
  void updateColorRange();
  /// The map's cells from data_ as the attention scale transforms them (row, log); others: data_ as it is.
  void fillCells();
  /// The scale applied to the cells: the attention scale with Range::UnitInterval, else Unit (none).
  AttentionScale cellScale() const;
  /// Colours, line widths and theme from ViewStyle (colour-map choice, dark theme, presentation).
  void applyStyle();
  /// Rebuilds the outline and band items from pins_ and hovered_.
  void updateMarks();

  QCPColorMap* map_;
  QCPAxisRect* bar_;     ///< the colour bar: an axis rect holding a 1 × kBarLevels map
  QCPColorMap* barMap_;  ///< its cells, one per level, drawn like the matrix (vector in SVG/PDF)
  QCPTextElement* title_;
  QSize tickedSize_;             ///< the axis rect size the tick labels were thinned for
  QString rowTitle_, colTitle_;  ///< the axis titles as set, before a note on thinned labels
  int reticks_ = 0;              ///< labels thinned again after a layout pass since the last resize or matrix
  Mat data_;
  QStringList rowLabels_, colLabels_;
  int extentRows_ = 0, extentCols_ = 0;  ///< setExtent
  Range rangeMode_ = Range::Data;
  double fixedLo_ = 0, fixedHi_ = 1;
  double groupMax_ = 0;
  bool rowSkipsDiagonal_ = false;
  AttentionScale filledScale_ = AttentionScale::Unit;  ///< the scale the map's cells were filled with
  int hoverRow_ = -1, hoverCol_ = -1;                  ///< the cell the read-out names; −1: none
  ColorMap requestedMap_ = ColorMap::Viridis;
  double fontScale_ = 1.0;
  bool tokenRows_ = false, tokenCols_ = false;
  std::vector<int> pins_;
  int hovered_ = -1;
  int labelHover_ = -1;              ///< the token label under the mouse, −1: none
  std::vector<QCPItemRect*> marks_;  ///< hover bands first, then pin outlines
  std::vector<QCPItemLine*> crosses_;
  int window_ = 0;
  std::vector<QCPItemRect*> shades_;  ///< one per row that reaches past the window
  /// What shades_ were made for (window, rows, columns, colour): they are remade only when one of these changes, not on
  /// every hover move (a long map's thousands of rows).
  std::tuple<int, int, int, QRgb> shadesFor_{0, -1, -1, 0};
  std::vector<std::pair<int, int>> crossed_;
  std::function<QString(int, int)> cellNamer_;
};

}  // namespace attnlab::ui
