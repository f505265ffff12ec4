#pragma once
// "similar_heads" (issue 17): the heads' pairwise similarity (1 − JSD / ln 2 of their attention rows) as a matrix in
// the clustering's order, labelled "L1H2", so heads that do the same thing sit in blocks; beside it the 2-D map of
// the heads coloured by layer. Hover names the heads, a click selects one everywhere.
#include <QLabel>

#include "ui/views/heads/atlas_view.h"

namespace attnlab::ui {

class MatrixPlot;
class HeadScatterPlot;

class SimilarHeadsView : public AtlasView {
  Q_OBJECT
 public:
  explicit SimilarHeadsView(AtlasStore* store, QWidget* parent = nullptr);
  QString viewName() const override { return "similar_heads"; }
  QString displayName() const override { return tr("Similar heads"); }
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;

  MatrixPlot* matrix() const { return matrix_; }
  HeadScatterPlot* map() const { return map_; }
  /// The heads (layer-major indices) in the matrix's row order.
  const std::vector<int>& order() const { return order_; }
  QString hoverText() const { return hover_->text(); }

 protected:
  void drawAtlas(const std::shared_ptr<const HeadAtlas>& atlas) override;

 private:
  void selectIndex(int index);

  MatrixPlot* matrix_;
  HeadScatterPlot* map_;
  QLabel* hover_;
  std::vector<int> order_;
  QString title_;
};

}  // namespace attnlab::ui
