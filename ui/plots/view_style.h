#pragma once
// The look every view shares: the chosen colour map, light/dark theme, and presentation mode (thick
// lines, high contrast). One instance per program; views read it when they draw and listen to
// changed(). The settings come from Params::display (so sessions and `attnlab export` reproduce
// them) and from the window's presentation toggle.
#include <QColor>
#include <QObject>
#include <functional>

#include "core/session/display_settings.h"
#include "ui/plots/attention_scale.h"
#include "ui/plots/colormaps.h"

class QMenu;

namespace attnlab {
struct Params;
}

namespace attnlab::ui {

class ViewStyle : public QObject {
  Q_OBJECT
 public:
  static ViewStyle& instance();

  /// The map to draw with when a view asks for `requested`: sequential maps (attention weights)
  /// follow the user's choice, the diverging map (signed values) stays diverging.
  ColorMap resolve(ColorMap requested) const;
  ColorMap sequential() const { return sequential_; }
  bool dark() const { return dark_; }
  bool presentation() const { return presentation_; }
  /// Colour range of attention weights (Params::display.attentionScale; ui/plots/attention_scale.h).
  AttentionScale attentionScale() const { return attentionScale_; }
  /// Pen width for a line drawn `base` wide normally: thicker in presentation mode.
  double lineWidth(double base) const { return presentation_ ? base * 2.5 : base; }
  QColor foreground() const;
  QColor background() const;

  /// Colour map and theme; the theme's palette is applied to the whole application.
  void setDisplay(const DisplaySettings& d);
  void setPresentation(bool on);

 signals:
  void changed();

 private:
  ViewStyle() = default;
  void applyPalette();

  ColorMap sequential_ = ColorMap::Viridis;
  bool dark_ = false;
  bool presentation_ = false;
  AttentionScale attentionScale_ = AttentionScale::Unit;
};

/// A "Colour scale of attention" submenu of `parent` with the choices of
/// attentionScaleNames(): a choice edits display.attentionScale of `current()` and passes the copy
/// to `edit`, so it lands in the parameters (sessions, undo, `attnlab export`) like the colour map.
QMenu* addAttentionScaleMenu(QMenu* parent, std::function<Params()> current, std::function<void(const Params&)> edit);

}  // namespace attnlab::ui
