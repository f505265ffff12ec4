#pragma once
// Plot helpers shared by the rank-collapse views: one colour per stack configuration (Okabe–Ito,
// distinguishable with colour-vision deficiencies), log-scale axes, and curves drawn as a median line
// over a shaded min–max band. Values at or below the plot's floor (a residual of exactly 0) are drawn
// on the floor, never as −inf.
#include <QColor>
#include <QString>
#include <vector>

#include <qcustomplot.h>

#include "core/collapse/collapse_settings.h"

namespace attnlab::ui {

/// Lowest value a log-scale collapse plot shows; exact zeros are drawn here.
inline constexpr double kLogFloor = 1e-18;

QColor configColor(StackConfig c);

/// A logarithmic y axis with powers of ten as tick labels.
void makeLogAxis(QCPAxis* axis);

/// Median line (solid, named for the legend) over a min–max band (translucent, not in the legend).
/// x, median, min, max have equal lengths. Returns the median graph.
QCPGraph* addBandCurve(QCustomPlot* plot, const std::vector<double>& x, const std::vector<double>& median,
                       const std::vector<double>& min, const std::vector<double>& max, const QColor& color,
                       const QString& name);

/// Fonts of a plot's axes, legend and title for a presentation scale (1 = normal).
void scalePlotFonts(QCustomPlot* plot, double scale);

}  // namespace attnlab::ui
