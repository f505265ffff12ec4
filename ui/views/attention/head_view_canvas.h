#pragma once
// The head view's painted part (ui/views/attention/head_view.h): the token columns and the lines,
// overlaid or in one column per head, with hover, pins and the shared token selection.
#include <QLineF>
#include <QWidget>
#include <array>
#include <memory>
#include <vector>

#include "ui/views/common/compute_result.h"

class QPainter;

namespace attnlab::ui {

/// The painted part: token columns and lines. Separate so it can be taller than the window and scroll.
class HeadViewCanvas : public QWidget {
  Q_OBJECT
 public:
  /// Longest text drawn: every head's map of a layer is held (12 × 2,048² floats = 200 MB for GPT-2), and beyond
  /// that the rows are under a pixel high. Longer texts get a message pointing to the heatmap and model views.
  static constexpr int kMaxTokens = 2048;
  /// From this many tokens on, a focused token shows only its kFocusEdges strongest edges per head.
  static constexpr int kFocusEdgesFrom = 256;
  static constexpr int kFocusEdges = 16;
  explicit HeadViewCanvas(QWidget* parent = nullptr);

  /// The attention matrices of `layer`'s heads (rows = queries), read in place from the shared
  /// result (no copy: at 512 tokens × 12 heads that is 12 MB), and the token labels.
  void setData(const ResultPtr& result, int layer);
  /// Lets the result and its maps go (a hidden page, issue 31); the heads' visibility stays for the next setData.
  void clearData();
  void setHeadVisible(int head, bool visible);
  bool headVisible(int head) const;
  void setThreshold(double t);
  void setFontScale(double scale);
  /// One column pair per shown head (true) or all heads overlaid (false).
  void setPerHeadColumns(bool on);
  bool perHeadColumns() const { return perHead_; }
  std::vector<bool> visibleHeads() const { return visible_; }
  /// Token focused by hover or pin: side 0 = query column, 1 = key column; −1 when none.
  void setFocusToken(int side, int token, bool pin);
  int focusSide() const { return focusSide_; }
  int focusToken() const { return focusToken_; }
  bool pinned() const { return pinned_; }
  /// The window's pinned tokens (selection.pinned) and shared hovered token: without a focus of the
  /// canvas's own, the pinned queries' lines alone are drawn (several: their lines together, the key
  /// column shaded by their summed attention), else the hovered query's.
  void setSharedTokens(const std::vector<int>& pinned, int hovered);
  /// The queries (side 0) or keys (side 1) whose lines are drawn; empty side −1: every line.
  std::vector<int> focusTokens(int* side = nullptr) const;
  /// The token under a canvas position: side and index, or false.
  bool tokenAt(const QPoint& pos, int* side, int* token) const;
  int naturalRowHeight() const;  ///< one text line and a little air
  int rowHeight() const;         ///< the natural height, stretched to fill the view
  /// x range of each line panel (query end, key end) and the head it draws (−1: every shown head).
  struct Panel {
    double left, right;
    int head;
  };
  std::vector<Panel> panels() const;
  /// Number of line segments the last paint drew (for the benchmark and tests).
  int linesDrawn() const { return linesDrawn_; }
  /// Why the canvas draws no lines (a text beyond kMaxTokens), or empty.
  QString tooLongMessage() const { return tooLong_; }
  /// Lines above the threshold before the cap on the number drawn (the strongest 4000 are kept).
  int linesAboveThreshold() const { return totalLines_; }
  static QColor headColor(int head);
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 signals:
  void tokenHovered(int token);  ///< −1 when the mouse leaves the token columns
  void tokenClicked(int token, Qt::KeyboardModifiers modifiers);

 private:
  struct Line {
    int query, key, head;
    float weight;
  };
  void rebuildLines();
  /// The weakest weight still drawn from the focused tokens (the kFocusEdges-th strongest per token; 0 when short).
  float focusFloor(const Mat& a, const std::vector<int>& focus, int side) const;
  int columnWidth() const;
  int topMargin() const;  ///< room for the per-head column titles
  void updateMinimumHeight();
  double rowY(int token) const;
  /// Sorts the lines to draw into per-head, per-opacity buckets; fills `emphasis` in focus.
  std::vector<std::vector<QLineF>> collectLines(const QRect& clip, std::vector<float>* emphasis) const;
  void paintLabels(QPainter& p, const QRect& clip, const std::vector<float>& emphasis);

  ResultPtr result_;                              ///< keeps the stored matrices alive
  std::vector<std::shared_ptr<const Mat>> maps_;  ///< [n, n] each: stored, or recomputed for a long input
  std::vector<const Mat*> heads_;                 ///< maps_, as pointers
  QString tooLong_;                               ///< why nothing is drawn (a text beyond kMaxTokens), or empty
  QStringList tokens_;
  std::vector<bool> visible_;
  std::vector<Line> lines_;  ///< weights ≥ threshold, all heads
  double threshold_ = 0.02;
  double fontScale_ = 1.0;
  bool perHead_ = false;
  int focusSide_ = -1, focusToken_ = -1;
  bool pinned_ = false;
  std::vector<int> sharedPins_;  ///< within the sentence
  int sharedHover_ = -1;
  int linesDrawn_ = 0;
  int totalLines_ = 0;
};

}  // namespace attnlab::ui
