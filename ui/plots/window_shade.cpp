#include "ui/plots/window_shade.h"

#include <QLocale>
#include <QObject>
#include <algorithm>

namespace attnlab::ui {

QPolygonF outsideWindow(int n, int window, int firstRow, int endRow) {
  QPolygonF poly;
  if (window <= 0) return poly;
  const int r0 = std::max(firstRow, window), r1 = std::min(endRow, n);
  if (r1 <= r0) return poly;
  poly << QPointF(0, r0);
  for (int i = r0; i < r1; ++i) {  // row i's hidden cells are columns [0, i − window + 1)
    const double right = std::min(n, i - window + 1);
    poly << QPointF(right, i) << QPointF(right, i + 1);
  }
  poly << QPointF(0, r1);
  return poly;
}

QColor windowShadeColour() { return QColor(150, 150, 150, 225); }

QString windowTitleNote(int window) {
  if (window <= 0) return {};
  return QObject::tr(" · window %1").arg(QLocale(QLocale::English).toString(window));
}

}  // namespace attnlab::ui
