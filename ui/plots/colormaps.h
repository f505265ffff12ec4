#pragma once
// Perceptual colour maps. QCustomPlot 2.1 has no viridis, so the maps are defined here from their
// published anchor colours (matplotlib's viridis/magma/cividis, ColorBrewer RdBu for signed data).
#include <QColor>
#include <QString>
#include <QStringList>
#include <vector>

#include <qcustomplot.h>

namespace attnlab::ui {

enum class ColorMap { Viridis, Magma, Cividis, Diverging };

/// Gradient for QCPColorMap (no interpolation artefacts: 256 levels, linear between anchors).
QCPColorGradient gradient(ColorMap map);
/// Colour at t ∈ [0, 1] (clamped), for views that paint pixels themselves. Returns ARGB32.
QRgb colorAt(ColorMap map, double t);
/// The map sampled at 1024 levels, for painting many pixels fast (a lookup instead of interpolation).
const std::vector<QRgb>& colorTable(ColorMap map);
QString colorMapName(ColorMap map);
QStringList colorMapNames();
ColorMap colorMapFromName(const QString& name);

}  // namespace attnlab::ui
