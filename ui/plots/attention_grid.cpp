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
  // Captions ("L0 H0 · induction 0.91") on two lines, split at " · ", in a font that shrinks (to 7 pt at least) until
  // the widest line fits its cell: in presentation mode they were cut to "L0…".
  const int cellW0 = (width() - 8 * (cols + 1)) / std::max(1, cols);
  QStringList lines;
  for (const auto& row : titles_)
    for (const QString& t : row) lines << t.split(QStringLiteral(" · "));
  const int lineCount =
      std::any_of(titles_.begin(), titles_.end(),
                  [](const auto& row) {
                    return std::any_of(row.begin(), row.end(), [](const QString& t) { return t.contains(" · "); });
                  })
          ? 2
          : 1;
  QFont f = font();
  const double wanted = f.pointSizeF() * fontScale_, floor = std::min(wanted, 7.0);
  f.setPointSizeF(wanted);
  const auto widest = [&] {
    int w = 0;
    for (const QString& line : lines) w = std::max(w, QFontMetrics(f).horizontalAdvance(line));
    return w;
  };
  while (widest() > cellW0 + 4 && f.pointSizeF() > floor) f.setPointSizeF(std::max(floor, f.pointSizeF() - 0.5));
  p.setFont(f);
  const int titleH = p.fontMetrics().height() * lineCount + 4, gap = 8;
  const int cellW = cellW0;
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
      QStringList caption = title.split(QStringLiteral(" · "));
      if (caption.size() > lineCount) caption = {caption.front(), caption.mid(1).join(QStringLiteral(" · "))};
      for (QString& line : caption) line = p.fontMetrics().elidedText(line, Qt::ElideRight, cellW + gap);
      const int cellX = gap + h * (cellW + gap) - gap / 2;
      p.drawText(QRect(cellX, y + side + 2, cellW + gap, titleH), Qt::AlignHCenter | Qt::AlignTop, caption.join('\n'));
    }
}

}  // namespace attnlab::ui
