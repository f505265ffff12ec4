#include "ui/plots/math_text.h"

namespace attnlab::ui {
namespace {

/// Maps every character of `text` through the pair of strings (from[i] → to[i]); empty when one is missing.
QString mapped(const QString& text, const QString& from, const QString& to) {
  QString out;
  for (const QChar c : text) {
    const int i = from.indexOf(c);
    if (i < 0) return {};
    out += to[i];
  }
  return out;
}

}  // namespace

QString subscript(const QString& text) {
  return mapped(text, QString::fromUtf8("0123456789+-−=()aehijklmnoprstuvx"),
                QString::fromUtf8("₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"));
}

QString superscript(const QString& text) {
  return mapped(text, QString::fromUtf8("0123456789+-−=()abcdefghijklmnoprstuvwxyz"),
                QString::fromUtf8("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"));
}

}  // namespace attnlab::ui
