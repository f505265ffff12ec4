#pragma once
// Crisp matrix cells on every device. On screen and in PNG a matrix is an image drawn without
// smoothing. In SVG/PDF an image would be resampled by the viewer (blurred halos) and Qt's PDF engine
// stores it as JPEG unless told otherwise, so there the cells become vector rectangles; above
// kMaxVectorCells they become a lossless image, nearest-neighbour upscaled so each cell is a block.
#include <QImage>
#include <QPainter>
#include <QRectF>

namespace attnlab::ui {

/// Above this many cells (256 × 256) a vector figure embeds a lossless image instead of rectangles:
/// 65 536 rectangles are a ~2 MB PDF page that viewers still draw in well under a second.
inline constexpr qint64 kMaxVectorCells = 256 * 256;

/// True when `painter` writes SVG or PDF (where cells must not be a resampled or JPEG image).
bool isVectorDevice(const QPainter* painter);

/// Paints `cells`, one pixel per matrix cell (pixel (x, y) = column x, row y as seen on the page),
/// stretched over `target`. Equal-coloured runs within a row are merged into one rectangle.
void paintCells(QPainter* painter, const QRectF& target, const QImage& cells);

}  // namespace attnlab::ui
