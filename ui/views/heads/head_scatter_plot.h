#pragma once
// Every head of a model as one point (issue 17): x, y and colour are numbers of the head (its scores, or its layer
// and head index) the view chooses. Hover reports the head under the cursor (within 10 px), a click selects it, a
// drag draws a lasso whose heads are reported together; switched-off heads are crossed, the lasso's group ringed,
// the selected head framed. The points are QCustomPlot graphs (one per colour level), so SVG/PDF keep them vector;
// 500 heads draw in a few milliseconds.
#include <QPolygonF>
#include <vector>

#include <qcustomplot.h>

namespace attnlab::ui {

class HeadScatterPlot : public QCustomPlot {
  Q_OBJECT
 public:
  struct Point {
    int layer = 0, head = 0;
    double x = 0, y = 0, colour = 0;  ///< NaN x or y: not drawn (a score the model lacks)
  };
  explicit HeadScatterPlot(QWidget* parent = nullptr);

  /// Replaces the points; colour is mapped linearly from its range onto the sequential colour map, or with
  /// `discrete` (an index: layer, head) one colour per integer value, the colour bar in as many steps with
  /// integer ticks.
  void setPoints(std::vector<Point> points, bool discrete = false);
  bool discreteColour() const { return discrete_; }
  QCPColorScale* colourScale() const { return scale_; }
  const std::vector<Point>& points() const { return points_; }
  void setTitles(const QString& title, const QString& x, const QString& y, const QString& colour);
  /// Heads (indices into points()) drawn crossed out, ringed (the lasso's group), and framed (the selection, −1 none).
  void setMarks(const std::vector<int>& crossed, const std::vector<int>& group, int selected);
  const std::vector<int>& group() const { return group_; }
  /// The point's place in widget pixels, and the point nearest `pos` within 10 px (−1: none).
  QPointF pixelOf(int index) const;
  int pointAt(const QPointF& pos) const;
  void setFontScale(double scale);
  QSize minimumSizeHint() const override { return {160, 120}; }

 signals:
  void pointHovered(int index);  ///< −1 when the cursor leaves every point
  void pointClicked(int index, Qt::KeyboardModifiers modifiers);
  /// A lasso was drawn; `indices` are the points inside it (possibly none).
  void lassoSelected(const std::vector<int>& indices);

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;  ///< the title wrapped again to the new width

 private:
  void rebuild();
  void applyFonts();

  std::vector<Point> points_;
  std::vector<int> crossed_, group_;
  int selected_ = -1;
  int hovered_ = -1;
  QCPColorScale* scale_;
  QCPTextElement* title_;
  QString titleText_;  ///< the title as given; title_ shows it wrapped to the plot's width
  QPolygonF lasso_;
  bool dragging_ = false;
  double fontScale_ = 1.0;
  bool discrete_ = false;
};

}  // namespace attnlab::ui
