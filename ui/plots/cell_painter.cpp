#include "ui/plots/cell_painter.h"

#include <QPaintEngine>
#include <algorithm>
#include <cmath>

namespace attnlab::ui {
namespace {

/// Largest side of the lossless image a vector figure embeds for a big matrix: 4096² RGB is 48 MB
/// before Flate, and a matrix that large has cells smaller than a printed dot anyway.
constexpr int kMaxImageSide = 4096;

/// Rectangles, row by row from the top, each equal-coloured run of a row as one rectangle. Each
/// rectangle reaches `overlap` past its right and bottom edge, under the next one painted: viewers
/// anti-alias shape edges, and two edges meeting exactly leave a faint seam of background.
void paintRects(QPainter* p, const QRectF& target, const QImage& cells) {
  const double cw = target.width() / cells.width(), ch = target.height() / cells.height();
  const double overlap = 0.5 * std::min({1.0, cw, ch});
  p->setPen(Qt::NoPen);
  for (int y = 0; y < cells.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(cells.constScanLine(y));
    for (int x = 0; x < cells.width();) {
      int end = x + 1;
      while (end < cells.width() && line[end] == line[x]) ++end;
      const QRectF r(target.left() + x * cw, target.top() + y * ch, (end - x) * cw + overlap, ch + overlap);
      p->fillRect(r, QColor::fromRgb(line[x]));
      x = end;
    }
  }
}

/// A lossless image, each cell a k × k block, so that a viewer's smoothing blurs at most 1/k of a cell.
void paintBlocks(QPainter* p, const QRectF& target, const QImage& cells) {
  const double perCell = std::max(target.width() / cells.width(), target.height() / cells.height());
  const int maxK = std::max(1, kMaxImageSide / std::max(cells.width(), cells.height()));
  const int k = std::clamp(static_cast<int>(std::ceil(perCell)), 1, maxK);
  const QImage blocks = k == 1 ? cells : cells.scaled(cells.size() * k, Qt::IgnoreAspectRatio, Qt::FastTransformation);
  p->drawImage(target, blocks);
}

}  // namespace

bool isVectorDevice(const QPainter* painter) {
  const QPaintEngine* engine = painter->paintEngine();
  return engine && (engine->type() == QPaintEngine::Pdf || engine->type() == QPaintEngine::SVG);
}

void paintCells(QPainter* painter, const QRectF& target, const QImage& cells) {
  if (cells.isNull() || target.isEmpty()) return;
  const QImage rgb = cells.format() == QImage::Format_RGB32 ? cells : cells.convertToFormat(QImage::Format_RGB32);
  painter->save();
  painter->setClipRect(target, Qt::IntersectClip);
  painter->setRenderHint(QPainter::SmoothPixmapTransform, false);  // nearest neighbour: a cell is a cell
  // Qt's PDF engine writes every image as JPEG (quality 94, halos around sharp edges) unless this
  // hint is set; then it writes Flate, which is lossless (qpdf.cpp, QPdfEnginePrivate::addImage).
  painter->setRenderHint(QPainter::LosslessImageRendering, true);
  const bool vector = isVectorDevice(painter);
  if (vector && static_cast<qint64>(rgb.width()) * rgb.height() <= kMaxVectorCells)
    paintRects(painter, target, rgb);
  else if (vector)
    paintBlocks(painter, target, rgb);
  else
    painter->drawImage(target, rgb);
  painter->restore();
}

}  // namespace attnlab::ui
