#pragma once
// A long attention map (thousands of tokens) as a heatmap with zoom and pan: the wheel zooms around the
// cursor, a drag pans, a minimap in the corner shows the whole map and the viewport (a click or drag on
// it moves the viewport). Painted from a MapPyramid (core/compute/map_pyramid.h) — never QCustomPlot,
// which would resample all n² cells per frame: each screen pixel takes the max (or mean) of the cells of
// the level it covers, the coarsest level whose cells are ≤ 1 pixel, so no cell's peak is dropped;
// zoomed in past one pixel per cell, the full-resolution cells of the visible window are read (level 0
// or the pyramid's producer) and drawn as blocks. Colours as MatrixPlot: ViewStyle's map and range.
// In an exported figure the map is the raster image drawn on screen (SVG/PDF embed it).
#include <QImage>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "core/compute/map_pyramid.h"
#include "ui/plots/colormaps.h"
#include "ui/plots/zoomable_heatmap_render.h"

namespace attnlab::ui {

class ZoomableHeatmap : public QWidget {
  Q_OBJECT
 public:
  explicit ZoomableHeatmap(QWidget* parent = nullptr);

  /// The map to draw (shared: the view keeps building new ones) and its token labels (rows, columns).
  void setPyramid(std::shared_ptr<const MapPyramid> pyramid, const QStringList& rowLabels,
                  const QStringList& colLabels);
  const MapPyramid* pyramid() const { return pyramid_.get(); }
  void setTitle(const QString& title);
  const QString& title() const { return title_; }
  void setAxisTitles(const QString& rows, const QString& cols);
  void setPooling(Pooling pooling);
  Pooling pooling() const { return pooling_; }
  /// Attention weights: [0, 1], own max or shared max as ViewStyle::attentionScale() says (MatrixPlot's
  /// Range::UnitInterval); the shared maximum as MatrixPlot::setGroupMax.
  void setGroupMax(double max);
  void setFontScale(double scale);
  /// A sliding window of `window` keys (0: none): cells outside it are shaded "not visible" (window_shade.h).
  void setWindow(int window);
  int window() const { return window_; }
  /// Pinned tokens get their rows and columns outlined, the hovered token (−1: none) a light band, as
  /// in MatrixPlot::setTokenMarks.
  void setTokenMarks(const std::vector<int>& pinned, int hovered);
  const std::vector<int>& markedPins() const { return pins_; }
  int markedHover() const { return hovered_; }
  /// The column of the hover band: the cell's under the cursor when it is on the hovered token's row, else the
  /// hovered token's own (−1: none), as MatrixPlot::hoverBandColumn.
  int hoverBandColumn() const {
    return hovered_ < 0 ? -1 : hoverRow_ == hovered_ && hoverCol_ >= 0 ? hoverCol_ : hovered_;
  }
  /// The colour range in use and the colour of a value (tests). Under the row scale (ViewStyle) the pyramid
  /// given must hold each row divided by its maximum (the heatmap view builds it so: head_pyramid.h); under the
  /// log scale colours run from logFloor(cols) to 1 (attention_scale.h). The bar's label names the scale.
  std::pair<double, double> colorRange() const;
  QRgb colorOf(double value) const;
  /// The colour of the map's cell (row, col) at full resolution (zoomed in to one cell a block).
  QRgb cellColor(int row, int col) const;

  /// Zoom and pan. Scale: screen pixels per map cell (the same along both axes); at least the scale
  /// at which the whole map fits (fitScale), at most kMaxPixelsPerCell.
  static constexpr double kMaxPixelsPerCell = 48;
  double scale() const { return scale_; }
  double fitScale() const;
  /// Multiplies the scale by `factor`, keeping the map point under widget position `anchor` in place.
  void zoomBy(double factor, const QPointF& anchor);
  /// Moves the map by `delta` pixels (a drag to the right shows what is further left).
  void panBy(const QPointF& delta);
  /// Centres the viewport on map point (column, row), as far as the map allows.
  void centreOn(const QPointF& cell);
  void resetView();
  /// The visible part of the map in cell coordinates (x: columns, y: rows), clipped to the map.
  QRectF visibleCells() const;
  /// The level the map is drawn from now (0: full resolution).
  int drawnLevel() const;
  /// Where the map, the minimap and the colour bar are, in widget coordinates (the minimap is shown
  /// only when part of the map is out of view: an empty rect otherwise).
  QRect plotRect() const;
  QRect minimapRect() const;
  /// The map cell at widget position `pos`, false outside the map.
  bool cellAt(const QPointF& pos, int* row, int* col) const;
  QSize minimumSizeHint() const override { return {160, 120}; }

 signals:
  void cellHovered(int row, int col, double value);  ///< row −1 when the cursor leaves the map
  void cellClicked(int row, int col, Qt::KeyboardModifiers modifiers);
  void viewChanged();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  /// The visible map as one pixel per screen pixel of plotRect(): cached until the view changes.
  const QImage& mapImage();
  /// Where level `level`'s cells are read, for the pixel rows' cell ranges [rowLo, rowHi].
  LevelSource sourceFor(int level, const std::vector<int>& rowLo, const std::vector<int>& rowHi);
  /// The whole map at a coarse level, the minimap's picture (cached per map and pooling).
  const QImage& minimapImage();
  static constexpr int kBarWidth = 14;  ///< the colour bar's width in pixels
  void clampOrigin();
  /// The log scale's floor when the log scale is in force, else 0.
  double logFloorInForce() const;
  /// A value's colour position t ∈ [0, 1] under the scale in force.
  double position(double value) const;
  /// The content changed (map, pooling, colours): the next paint renders every pixel.
  void invalidate();
  /// Only the view moved: the next paint reuses what it can of the cached picture.
  void moved();
  void drawAxes(QPainter& p, const QRect& plot) const;
  void drawLabels(QPainter& p, const QRect& plot, bool rows) const;
  void drawColorBar(QPainter& p, const QRect& plot) const;
  void drawMinimap(QPainter& p);
  void drawMarks(QPainter& p, const QRect& plot) const;
  void drawWindowShade(QPainter& p, const QRect& plot) const;
  /// The map's cells on screen, clipped to plotRect().
  QRectF mapScreenRect() const;
  void minimapMove(const QPointF& pos);
  QFont tickFont() const;
  int labelWidth() const;
  static QString shownLabel(const QStringList& labels, int i);

  std::shared_ptr<const MapPyramid> pyramid_;
  QStringList rowLabels_, colLabels_;
  QString title_, rowTitle_, colTitle_;
  Pooling pooling_ = Pooling::Max;
  std::vector<int> pins_;
  int hovered_ = -1;
  int hoverRow_ = -1, hoverCol_ = -1;  ///< the cell under the cursor, −1: none
  double groupMax_ = 0;
  int window_ = 0;
  double fontScale_ = 1;
  mutable double labelWidthPt_ = -1;  ///< the font size labelWidth_ was measured at
  mutable int labelWidth_ = 0;
  double scale_ = 1;
  bool fitted_ = true;  ///< the whole map in view: stays so when the widget is resized
  QPointF origin_;      ///< the map point (column, row) at plotRect()'s top-left corner
  QImage image_, minimap_;
  bool imageValid_ = false, minimapValid_ = false;
  double imageScale_ = 0;  ///< the scale, origin and level image_ was drawn at
  QPointF imageOrigin_;
  int imageLevel_ = -1;
  MapLevel rows_;  ///< whole rows of the map read through the producer (no level 0), from rowsFirst_
  int rowsFirst_ = 0;
  enum class Drag { None, Map, Minimap } drag_ = Drag::None;
  QPointF lastPos_;
};

}  // namespace attnlab::ui
