#pragma once
// A sliding window drawn as such (issue 31): the cells a query cannot see because of its layer's window
// (Mistral, Gemma 2/3 local layers: query i sees keys i − W < j ≤ i) are shaded "not visible", unlike a weight
// of 0 that the query could have given. The matrix plot, the zoomable heatmap and the model grid share the shape
// and the colour.
#include <QColor>
#include <QPolygonF>
#include <QString>

namespace attnlab::ui {

/// The region of rows [firstRow, endRow) of an n × n map outside a window of `window` keys, in cell coordinates
/// (x: columns, y: rows; cell (i, j) spans [j, j + 1] × [i, i + 1]): the staircase of cells j ≤ i − window. Empty
/// when window ≤ 0 or no row of the range reaches past it.
QPolygonF outsideWindow(int n, int window, int firstRow, int endRow);
/// True when query `row` cannot see key `col` because of the window (window > 0 and col ≤ row − window).
inline bool hiddenByWindow(int window, int row, int col) { return window > 0 && col <= row - window; }
/// The shade over such cells: a neutral grey no sequential colour map uses, mostly opaque.
QColor windowShadeColour();
/// " · window 4,096" for titles (empty for window ≤ 0).
QString windowTitleNote(int window);

}  // namespace attnlab::ui
