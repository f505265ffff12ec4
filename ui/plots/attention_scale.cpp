#include "ui/plots/attention_scale.h"

#include <QObject>
#include <algorithm>
#include <cmath>

namespace attnlab::ui {

double logFloor(int n) {
  const int decades = std::max(3, static_cast<int>(std::ceil(std::log10(std::max(1, n)))) + 1);
  return std::pow(10.0, -decades);
}

Mat rowNormalised(const Mat& a, bool skipDiagonal) {
  Mat out = a;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    float top = 0;
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      if (!(skipDiagonal && i == j)) top = std::max(top, a(i, j));
    if (top > 0) out.row(i) /= top;
  }
  return out;
}

QString attentionScaleBarLabel(AttentionScale scale) {
  switch (scale) {
    case AttentionScale::PerMap:
      return QObject::tr("weight ÷ own max");
    case AttentionScale::Shared:
      return QObject::tr("weight ÷ shared max");
    case AttentionScale::Row:
      return QObject::tr("weight ÷ row max");
    case AttentionScale::Log:
      return QObject::tr("weight (log)");
    case AttentionScale::Unit:
      break;
  }
  return QObject::tr("weight");
}

QString attentionScaleTitleNote(AttentionScale scale) {
  switch (scale) {
    case AttentionScale::PerMap:
      return QObject::tr(" · colours to the map's max");
    case AttentionScale::Shared:
      return QObject::tr(" · colours to the shared max");
    case AttentionScale::Row:
      return QObject::tr(" · each row to its max");
    case AttentionScale::Log:
      return QObject::tr(" · log colours");
    case AttentionScale::Unit:
      break;
  }
  return {};
}

QString decadeLabel(int exponent) {
  if (exponent >= -2 && exponent <= 0) return QString::number(std::pow(10.0, exponent), 'g', 3);
  static const QString digits = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
  QString sup;
  for (const QChar c : QString::number(std::abs(exponent))) sup += digits[c.digitValue()];
  return QStringLiteral("10") + (exponent < 0 ? QStringLiteral("⁻") : QString()) + sup;
}

}  // namespace attnlab::ui
