#pragma once
#include <QImage>
#include <QPainter>
#include <vector>

#include "core/model/encdec_trace.h"
#include "ui/plots/colormaps.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

/// Small heatmaps of every layer × head; the selected one framed; a colour bar on the right. Click a
/// thumbnail to select it; Ctrl+click switches the head off or on again (params.prediction.ablate), and
/// switched-off heads are veiled and crossed. Painted directly (no plot widget per head): GPT-2 small has 144 of them.
/// Colours follow ViewStyle::attentionScale(): 0–1, each map's own maximum, or the grid's maximum.
class ModelGridView : public TraceView {
  Q_OBJECT
 public:
  explicit ModelGridView(QWidget* parent = nullptr);
  QString viewName() const override { return "model"; }
  QString displayName() const override { return tr("Model"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  /// Every layer's and head's attention matrix: stacked [layers·heads, n, n] in NPY.
  ViewNumbers numbers(const ComputeResult& result) const override;
  bool drawsCross() const override { return true; }
  QSize sizeHint() const override { return {420, 320}; }
  /// The grid's title line: empty for one stack, "Cross-attention · n target rows × m source columns" when an
  /// encoder–decoder's cross stack is chosen (selection.stack "cross").
  QString title() const;
  /// What the mouse at `pos` over cross thumbnail (l, h) reads: target and source token and the weight.
  QString crossCellText(const QPoint& pos, int l, int h) const;
  /// Where thumbnail (layer, head) is drawn, in widget coordinates.
  QRect thumbnailRect(int layer, int head) const { return cellRect(layer, head); }
  /// Thumbnail under a widget position, or false.
  bool headAt(const QPoint& pos, int* layer, int* head) const;
  int layerCount() const { return layers_; }
  int headCount() const { return heads_; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  /// Tooltips name the thumbnail under the mouse, "L3 H7 (kv 1)".
  bool event(QEvent* event) override;

 private:
  QRect cellRect(int layer, int head) const;
  /// Fewer kv heads than heads (GQA/MQA): the grid names each group's kv head.
  bool groupedQuery() const;
  double labelPointSize() const;
  /// Width kept free on the right for the colour bar and its labels.
  int barReserve() const;
  void paintColorBar(QPainter& p) const;
  /// Outlines the pinned tokens' rows and columns on the thumbnail at `r` (rows × cols cells).
  void paintPins(QPainter& p, const QRect& r, int rows, int cols) const;
  void paintAblated(QPainter& p, const QRect& r) const;
  /// Thumbnails of the cross stack's maps (cross_): decoder layers × heads, each n_tgt × n_src.
  void showCross();
  int titleHeight() const;
  QFont labelFont() const;
  /// Shades the cells outside a sliding window of `window` keys on the thumbnail at `r` (window_shade.h).
  void paintWindow(QPainter& p, const QRect& r, int window) const;

  void dropResult() override {
    result_.reset();
    cross_ = nullptr;
    thumbs_.clear();
    thumbs_.shrink_to_fit();
  }
  ResultPtr result_;
  std::vector<QImage> thumbs_;  ///< layer-major
  /// The cross stack's layers when it is chosen (they live in result_'s run), else null; their token labels.
  const std::vector<CrossLayerTrace>* cross_ = nullptr;
  QStringList crossTargets_, crossSources_;
  int layers_ = 0, heads_ = 0;
  double scaleMax_ = 1;  ///< the weight at the top of the colour bar (unit and shared scales)
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
