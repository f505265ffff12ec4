#include "ui/plots/view_style.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPalette>

#include "core/session/params.h"
#include "ui/plots/plot_fitting.h"

namespace attnlab::ui {

ViewStyle& ViewStyle::instance() {
  static ViewStyle* style = new ViewStyle;  // lives as long as the program; never destroyed after QApplication
  installPlotFitting();                     // every view draws with this style, and every plot of a view fits its size
  return *style;
}

ColorMap ViewStyle::resolve(ColorMap requested) const {
  return requested == ColorMap::Diverging ? ColorMap::Diverging : sequential_;
}

QColor ViewStyle::foreground() const {
  if (presentation_) return dark_ ? Qt::white : Qt::black;  // high contrast: pure black on white
  return dark_ ? QColor(0xE0, 0xE0, 0xE0) : QColor(0x20, 0x20, 0x20);
}

QColor ViewStyle::background() const {
  if (presentation_) return dark_ ? Qt::black : Qt::white;
  return dark_ ? QColor(0x2B, 0x2B, 0x2B) : Qt::white;
}

void ViewStyle::setDisplay(const DisplaySettings& d) {
  const ColorMap map = colorMapFromName(QString::fromStdString(d.colormap));
  const bool dark = d.theme == "dark";
  const AttentionScale scale = d.attentionScale == "per-map"  ? AttentionScale::PerMap
                               : d.attentionScale == "shared" ? AttentionScale::Shared
                               : d.attentionScale == "row"    ? AttentionScale::Row
                               : d.attentionScale == "log"    ? AttentionScale::Log
                                                              : AttentionScale::Unit;
  if (map == sequential_ && dark == dark_ && scale == attentionScale_) return;
  const bool themeChanged = dark != dark_;
  sequential_ = map;
  dark_ = dark;
  attentionScale_ = scale;
  if (themeChanged) applyPalette();
  emit changed();
}

void ViewStyle::setPresentation(bool on) {
  if (on == presentation_) return;
  presentation_ = on;
  applyPalette();
  emit changed();
}

void ViewStyle::applyPalette() {
  if (!qobject_cast<QApplication*>(QCoreApplication::instance())) return;
  if (!dark_ && !presentation_) {
    QApplication::setPalette(QPalette());  // the platform's own light palette
    return;
  }
  const QColor fg = foreground(), bg = background();
  const QColor base = dark_ ? bg.darker(130) : Qt::white;
  const QColor button = dark_ ? QColor(0x3A, 0x3A, 0x3A) : QColor(0xF0, 0xF0, 0xF0);
  QPalette p;
  p.setColor(QPalette::Window, bg);
  p.setColor(QPalette::WindowText, fg);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, button);
  p.setColor(QPalette::Text, fg);
  p.setColor(QPalette::Button, button);
  p.setColor(QPalette::ButtonText, fg);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, fg);
  p.setColor(QPalette::Highlight, QColor(0xE6, 0x55, 0x0D));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::PlaceholderText, dark_ ? QColor(0x90, 0x90, 0x90) : QColor(0x70, 0x70, 0x70));
  p.setColor(QPalette::Disabled, QPalette::Text, dark_ ? QColor(0x70, 0x70, 0x70) : QColor(0xA0, 0xA0, 0xA0));
  p.setColor(QPalette::Disabled, QPalette::WindowText, dark_ ? QColor(0x70, 0x70, 0x70) : QColor(0xA0, 0xA0, 0xA0));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, dark_ ? QColor(0x70, 0x70, 0x70) : QColor(0xA0, 0xA0, 0xA0));
  QApplication::setPalette(p);
}

}  // namespace attnlab::ui

namespace attnlab::ui {

QMenu* addAttentionScaleMenu(QMenu* parent, std::function<Params()> current, std::function<void(const Params&)> edit) {
  QMenu* menu = parent->addMenu(QObject::tr("Colour &scale of attention"));
  menu->setToolTip(
      QObject::tr("unit: 0 to 1 on every map, so maps compare at a glance; per-map: 0 to each map's "
                  "own largest weight; shared: 0 to the largest weight among the maps shown together; row: each "
                  "row (query) to its own largest weight; log: log10 of the weight, from 10^-3 or lower."));
  auto* group = new QActionGroup(menu);
  for (const std::string& name : attentionScaleNames()) {
    QAction* a = menu->addAction(QString::fromStdString(name));
    a->setCheckable(true);
    group->addAction(a);
    QObject::connect(a, &QAction::triggered, menu, [current, edit, name] {
      Params p = current();
      p.display.attentionScale = name;
      edit(p);
    });
  }
  QObject::connect(menu, &QMenu::aboutToShow, menu, [current, group] {
    const std::string now = current().display.attentionScale;
    for (QAction* a : group->actions()) a->setChecked(a->text().toStdString() == now);
  });
  return menu;
}

}  // namespace attnlab::ui
