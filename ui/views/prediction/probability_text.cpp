#include "ui/views/prediction/probability_text.h"

#include <cmath>

namespace attnlab::ui {

QString probabilityText(double p) {
  if (!std::isfinite(p)) return QStringLiteral("n/a");
  if (p == 0) return QStringLiteral("0");
  if (std::abs(p) < 0.001) return QString::number(p, 'e', 1);
  return QString::number(p, 'f', 3);
}

}  // namespace attnlab::ui
