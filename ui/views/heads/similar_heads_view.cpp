#include "ui/views/heads/similar_heads_view.h"

#include <QHBoxLayout>
#include <QVBoxLayout>

#include "ui/plots/matrix_plot.h"
#include "ui/plots/panel_layout.h"
#include "ui/plots/view_style.h"
#include "ui/views/heads/atlas_labels.h"
#include "ui/views/heads/head_scatter_plot.h"
#include "ui/views/heads/heads_numbers.h"

namespace attnlab::ui {

SimilarHeadsView::SimilarHeadsView(AtlasStore* store, QWidget* parent) : AtlasView(store, parent) {
  auto* layout = new QVBoxLayout(this);
  auto* plots = new PanelLayout(360, 300);  // the similarity map beside the MDS map, or above it when narrow
  matrix_ = new MatrixPlot;
  // Similarities are in [0, 1] and follow the attention colour scale (attention_scale.h): a row to its largest
  // similarity to another head (its own is always 1), or log colours.
  matrix_->setRangeMode(MatrixPlot::Range::UnitInterval);
  matrix_->setRowMaxSkipsDiagonal(true);
  matrix_->setAxisTitles(tr("head (clustered order)"), tr("head (clustered order)"));
  map_ = new HeadScatterPlot;
  plots->addWidget(matrix_);
  plots->addWidget(map_);
  layout->addLayout(plots, 1);
  hover_ = new QLabel(tr("Hover a cell or a point for its heads; click to select a head."));
  hover_->setProperty(kScreenOnlyProperty, true);
  layout->addWidget(hover_);
  layout->addWidget(statusBar());

  connect(matrix_, &MatrixPlot::cellHovered, this, [this](int row, int col, double value) {
    if (row < 0 || row >= static_cast<int>(order_.size()) || col >= static_cast<int>(order_.size()) || !atlas()) return;
    const int heads = atlas()->heads;
    hover_->setText(tr("%1 and %2: similarity %3")
                        .arg(headLabel(order_[row] / heads, order_[row] % heads),
                             headLabel(order_[col] / heads, order_[col] % heads))
                        .arg(value, 0, 'f', 3));
  });
  connect(matrix_, &MatrixPlot::cellClicked, this, [this](int row, int, Qt::KeyboardModifiers) {
    if (row >= 0 && row < static_cast<int>(order_.size())) selectIndex(order_[row]);
  });
  connect(&ViewStyle::instance(), &ViewStyle::changed, this, [this] {
    if (!order_.empty()) matrix_->setTitle(title_ + attentionScaleTitleNote(ViewStyle::instance().attentionScale()));
  });
  connect(map_, &HeadScatterPlot::pointHovered, this, [this](int i) {
    if (i < 0 || !atlas()) return;
    const auto& p = map_->points()[static_cast<size_t>(i)];
    hover_->setText(headSummary(*atlas(), p.layer, p.head).replace('\n', " · "));
  });
  connect(map_, &HeadScatterPlot::pointClicked, this, [this](int i, Qt::KeyboardModifiers) {
    if (i >= 0) selectIndex(i);  // the map's points are layer-major
  });
}

void SimilarHeadsView::selectIndex(int index) {
  const auto a = atlas();
  if (!a || a->heads == 0) return;
  emit selectionRequested(index / a->heads, index % a->heads);
}

void SimilarHeadsView::drawAtlas(const std::shared_ptr<const HeadAtlas>& atlas) {
  order_.clear();
  if (!atlas || atlas->similarity.empty()) {
    matrix_->setMatrix(Mat(), {}, {});
    map_->setPoints({});
    matrix_->setTitle(store()->error().isEmpty() ? tr("The heads are being compared…") : store()->error());
    return;
  }
  const MatD m = clusteredSimilarity(*atlas, &order_);
  QStringList labels;
  for (int i : order_) labels << headLabel(i / atlas->heads, i % atlas->heads);
  title_ = tr("Similarity of the %1 heads' attention (1 − JSD / ln 2), clustered").arg(order_.size());
  matrix_->setTitle(title_ + attentionScaleTitleNote(ViewStyle::instance().attentionScale()));
  matrix_->setMatrix(m.cast<float>(), labels, labels);
  std::vector<HeadScatterPlot::Point> points;
  for (size_t i = 0; i < atlas->map2d.size(); ++i) {
    const int l = static_cast<int>(i) / atlas->heads, h = static_cast<int>(i) % atlas->heads;
    points.push_back({l, h, atlas->map2d[i][0], atlas->map2d[i][1], static_cast<double>(l)});
  }
  map_->setPoints(std::move(points));
  map_->setTitles(tr("Map of the heads (MDS)"), tr("map x"), tr("map y"), tr("layer"));
  map_->setMarks(ablatedIndices(), {}, selectedIndex());
}

void SimilarHeadsView::setFontScale(double scale) {
  matrix_->setFontScale(scale);
  map_->setFontScale(scale);
}

ViewNumbers SimilarHeadsView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, title_);
  if (const auto a = atlas(); a && atlasFits()) appendSimilarity(n, *a);
  return n;
}

}  // namespace attnlab::ui
