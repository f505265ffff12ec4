#include "ui/views/prediction/probability_text.h"

#include <cmath>

namespace attnlab::ui {

QString probabilityText(double p) {
  if (!std::isfinite(p)) return QStringLiteral("n/a");
  if (p == 0) return QStringLiteral("0");
  if (std::abs(p) < 0.001) {
    // "2.9·10⁻⁸", as the probability axis's own ticks print (QCustomPlot's beautiful powers): "2.9e-08" beside
    // "4.0·10⁻⁸" on the same plot read as two kinds of number.
    const QString e = QString::number(p, 'e', 1);  // "2.9e-08"
    const int at = e.indexOf('e');
    const int exponent = e.mid(at + 1).toInt();
    static const QString digits = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
    QString power = exponent < 0 ? QStringLiteral("⁻") : QString();
    for (const QChar c : QString::number(std::abs(exponent))) power += digits[c.digitValue()];
    return e.left(at) + QStringLiteral("·10") + power;
  }
  return QString::number(p, 'f', 3);
}

}  // namespace attnlab::ui
