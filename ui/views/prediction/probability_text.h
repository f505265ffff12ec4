#pragma once
// How the prediction views print a probability: three decimals from 0.001 up, scientific notation below (a token at
// 3·10⁻⁵ printed as "0.000", like one the model rules out), and "0" only for an exact zero.
#include <QString>

namespace attnlab::ui {

QString probabilityText(double p);

}  // namespace attnlab::ui
