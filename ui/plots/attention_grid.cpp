#include "ui/plots/attention_grid.h"

#include <QPainter>

#include <algorithm>

#include "ui/plots/cell_painter.h"
#include "ui/plots/colormaps.h"
#include "ui/plots/view_style.h"

namespace attnlab::ui {

AttentionGrid::AttentionGrid(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void AttentionGrid::setFontScale(double scale) {
  fontScale_ = scale;
  update();
}

void AttentionGrid::setData(const std::vector<std::vector<Eigen::MatrixXf>>& attention,
                            const std::vector<std::vector<QString>>& titles, int highlightLayer, int highlightHead) {
  const std::vector<QRgb>& table = colorTable(ColorMap::Viridis);
  const int levels = static_cast<int>(table.size());
  images_.assign(attention.size(), {});
  for (std::size_t l = 0; l < attention.size(); ++l)
    for (const Eigen::MatrixXf& a : attention[l]) {
      QImage img(static_cast<int>(a.cols()), static_cast<int>(a.rows()), QImage::Format_RGB32);
      for (int r = 0; r < img.height(); ++r) {
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(r));
        for (int c = 0; c < img.width(); ++c) {
          const float v = std::clamp(a(r, c), 0.0f, 1.0f);  // attention weights: the fixed [0, 1] scale
          line[c] = table[static_cast<std::size_t>(std::min(levels - 1, static_cast<int>(v * (levels - 1) + 0.5f)))];
        }
      }
      images_[l].push_back(img);
    }
  titles_ = titles;
  highlightLayer_ = highlightLayer, highlightHead_ = highlightHead;
  update();
}

void AttentionGrid::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), ViewStyle::instance().background());  // the figure's page, not the window's grey
  const int rows = static_cast<int>(images_.size());
  if (rows == 0) {
    p.drawText(rect(), Qt::AlignCenter, tr("Press Train: the attention of every head on the probe appears here."));
    return;
  }
  int cols = 0;
  for (const auto& r : images_) cols = std::max(cols, static_cast<int>(r.size()));
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * fontScale_);
  p.setFont(f);
  const int titleH = p.fontMetrics().height() + 4, gap = 8;
  const int cellW = (width() - gap * (cols + 1)) / std::max(1, cols);
  const int cellH = (height() - gap * (rows + 1)) / std::max(1, rows) - titleH;
  const int side = std::max(8, std::min(cellW, cellH));
  for (int l = 0; l < rows; ++l)
    for (int h = 0; h < static_cast<int>(images_[static_cast<std::size_t>(l)].size()); ++h) {
      const int x = gap + h * (cellW + gap) + (cellW - side) / 2;
      const int y = gap + l * (side + titleH + gap);
      const QRect target(x, y, side, side);
      // Crisp cells, one token pair one square; rectangles in SVG/PDF.
      paintCells(&p, target, images_[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)]);
      const bool hi = l == highlightLayer_ && h == highlightHead_;
      p.setPen(QPen(hi ? QColor(220, 40, 40) : palette().mid().color(), hi ? 3 : 1));
      p.drawRect(target.adjusted(-1, -1, 0, 0));
      p.setPen(palette().windowText().color());
      QString title;
      if (l < static_cast<int>(titles_.size()) && h < static_cast<int>(titles_[static_cast<std::size_t>(l)].size()))
        title = titles_[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
      // The title may use its whole column, not just the map's width: "L0 H0 · induction 0.09" was cut to
      // "L0 H0 · indu…" under the small maps of a slide-sized figure.
      const int columnX = gap / 2 + h * (cellW + gap), columnW = cellW + gap;
      p.drawText(QRect(columnX, y + side + 2, columnW, titleH), Qt::AlignHCenter | Qt::AlignTop,
                 p.fontMetrics().elidedText(title, Qt::ElideRight, columnW));
    }
}

}  // namespace attnlab::ui
