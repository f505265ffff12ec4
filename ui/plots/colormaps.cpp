#include "ui/plots/colormaps.h"

#include <algorithm>
#include <array>
#include <vector>

namespace attnlab::ui {
namespace {

// Anchor colours at equally spaced positions 0, 0.1, …, 1.
const std::vector<QRgb>& anchors(ColorMap map) {
  static const std::vector<QRgb> viridis{0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
                                         0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725};
  static const std::vector<QRgb> magma{0x000004, 0x140e36, 0x3b0f70, 0x641a80, 0x8c2981, 0xb73779,
                                       0xde4968, 0xf7705c, 0xfe9f6d, 0xfecf92, 0xfcfdbf};
  static const std::vector<QRgb> cividis{0x00224e, 0x123570, 0x3b496c, 0x575d6d, 0x707173, 0x8a8779,
                                         0xa69d75, 0xc4b56c, 0xe4cf5b, 0xfee838, 0xffea46};
  static const std::vector<QRgb> diverging{0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
                                           0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f};
  switch (map) {
    case ColorMap::Magma:
      return magma;
    case ColorMap::Cividis:
      return cividis;
    case ColorMap::Diverging:
      return diverging;
    case ColorMap::Viridis:
      break;
  }
  return viridis;
}

}  // namespace

QRgb colorAt(ColorMap map, double t) {
  const auto& a = anchors(map);
  if (!(t >= 0)) t = 0;  // NaN → low end
  t = std::min(1.0, t) * (a.size() - 1);
  const std::size_t i = std::min(a.size() - 2, static_cast<std::size_t>(t));
  const double f = t - i;
  const auto mix = [&](int shift) {
    const int c0 = (a[i] >> shift) & 0xFF, c1 = (a[i + 1] >> shift) & 0xFF;
    return static_cast<int>(c0 + (c1 - c0) * f + 0.5);
  };
  return qRgb(mix(16), mix(8), mix(0));
}

const std::vector<QRgb>& colorTable(ColorMap map) {
  static const auto tables = [] {
    std::array<std::vector<QRgb>, 4> t;
    for (int m = 0; m < 4; ++m)
      for (int i = 0; i < 1024; ++i) t[m].push_back(colorAt(static_cast<ColorMap>(m), i / 1023.0));
    return t;
  }();
  return tables[static_cast<int>(map)];
}

QCPColorGradient gradient(ColorMap map) {
  QCPColorGradient g;
  g.clearColorStops();
  const auto& a = anchors(map);
  for (std::size_t i = 0; i < a.size(); ++i) g.setColorStopAt(double(i) / (a.size() - 1), QColor(a[i]));
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  g.setLevelCount(256);
  return g;
}

QString colorMapName(ColorMap map) {
  switch (map) {
    case ColorMap::Magma:
      return "magma";
    case ColorMap::Cividis:
      return "cividis";
    case ColorMap::Diverging:
      return "diverging";
    case ColorMap::Viridis:
      break;
  }
  return "viridis";
}

QStringList colorMapNames() { return {"viridis", "magma", "cividis", "diverging"}; }

ColorMap colorMapFromName(const QString& name) {
  if (name == "magma") return ColorMap::Magma;
  if (name == "cividis") return ColorMap::Cividis;
  if (name == "diverging") return ColorMap::Diverging;
  return ColorMap::Viridis;
}

}  // namespace attnlab::ui
