#pragma once
// One save helper for every view: PNG (raster, with a scale factor), SVG and PDF (vector).
// Plots are drawn through QCustomPlot::toPainter so their lines and text stay vectors; other widgets
// draw themselves through QWidget::render onto the same painter.
#include <QString>
#include <QWidget>

namespace attnlab::ui {

/// "png", "svg" or "pdf" from a file name's extension; empty when unknown.
QString formatFromPath(const QString& path);

/// Renders `widget` (as laid out now) into `path`. Returns an empty string on success, else a
/// message naming the file and the problem.
QString exportWidget(QWidget* widget, const QString& path, const QString& format, double pngScale = 1.0,
                     const QString& title = {});

}  // namespace attnlab::ui
