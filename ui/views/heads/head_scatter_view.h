#pragma once
// "heads" (issue 17): every head of the model as a point, x, y and colour each any score of the atlas (or layer /
// head index), chosen in combo boxes saved in params.atlas. Hover shows the head, its scores and its probe
// attention; a click selects it everywhere; a lasso picks a group that "Switch these heads off" adds to
// params.prediction.ablate (switched-off heads are crossed). The caption names the probe; its tokens are exported
// with the numbers.
#include <QComboBox>
#include <QLabel>
#include <QPushButton>

#include "ui/views/heads/atlas_view.h"
#include "ui/views/heads/head_scatter_plot.h"

namespace attnlab::ui {

class HeadScatterView : public AtlasView {
  Q_OBJECT
 public:
  explicit HeadScatterView(AtlasStore* store, QWidget* parent = nullptr);
  QString viewName() const override { return "heads"; }
  QString displayName() const override { return tr("Heads"); }
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;

  HeadScatterPlot* plot() const { return plot_; }
  /// The hover card's text (empty: nothing hovered) and whether it shows a thumbnail.
  QString hoverText() const { return hoverText_->text(); }
  bool hoverHasThumbnail() const { return !hoverImage_->pixmap().isNull(); }
  QPushButton* ablateButton() const { return ablate_; }

 protected:
  void drawAtlas(const std::shared_ptr<const HeadAtlas>& atlas) override;

 private:
  void fillCombos(const HeadAtlas& atlas);
  void chooseAxes();
  void showHover(int index);

  QComboBox* x_;
  QComboBox* y_;
  QComboBox* colour_;
  QPushButton* ablate_;
  HeadScatterPlot* plot_;
  QLabel* hoverText_;
  QLabel* hoverImage_;
  QLabel* caption_;
  QString title_;
};

}  // namespace attnlab::ui
