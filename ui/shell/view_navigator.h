#pragma once
// The view navigator: a tree at the side of the window, chapters → views, that drives the ViewPages
// stack. Chapter titles are headings (a click goes to the chapter's first view; the arrow keys pass
// over them); the current view's entry is highlighted. Keyboard, from anywhere in the application:
// Ctrl+1…9 jump to chapter N's first view, Ctrl+PgDown / Ctrl+PgUp step to the next / previous view
// across chapters (wrapping at the ends).
#include <QTreeWidget>
#include <vector>

namespace attnlab::ui {

class ViewPages;

class ViewNavigator : public QTreeWidget {
  Q_OBJECT
 public:
  /// One chapter: its title and its views' page names in order. A view may give its own label;
  /// without one the entry shows the view's displayName().
  struct Entry {
    const char* view;
    const char* label = nullptr;
  };
  struct Chapter {
    const char* title;
    std::vector<Entry> entries;
  };
  /// The chapters in order (Ctrl+N jumps to the N-th). Views missing from the table get a chapter
  /// "More" at the end, so every view stays reachable.
  static const std::vector<Chapter>& chapters();

  /// Lists the pages of `pages` in chapters and shows the first view. The keyboard actions are added
  /// to `pages` (the central widget, always visible, so the shortcuts work while the navigator is
  /// hidden or floating).
  explicit ViewNavigator(ViewPages* pages, QWidget* parent = nullptr);

  ViewPages* pages() const { return pages_; }
  /// Selects the entry of `name` and shows its page; false for an unknown name.
  bool select(const QString& name);
  /// The current page's name.
  QString current() const;
  /// Every page name in navigator order (the order Ctrl+PgDown walks).
  QStringList order() const;
  /// The entry of a page, or of chapter `i` (nullptr when out of range).
  QTreeWidgetItem* entry(const QString& name) const;
  QTreeWidgetItem* chapter(int i) const { return i >= 0 && i < topLevelItemCount() ? topLevelItem(i) : nullptr; }
  /// Goes to the first view of chapter `i` (0-based).
  void goToChapter(int i);
  /// Goes to the next (+1) or previous (-1) view across chapters, wrapping at the ends.
  void step(int direction);
  /// Presentation mode: the font grows by `scale` and the navigator widens so no entry is elided.
  void setFontScale(double scale);
  /// Remembers the current view under the QSettings `key` and shows the view saved there.
  void rememberIn(const QString& key);
  /// Wide enough for the widest entry, chapters expanded, at the current font.
  QSize sizeHint() const override;

 signals:
  /// The page shown changed (a click, a key, select()).
  void currentChanged(const QString& name);

 protected:
  QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  void addChapter(const QString& title, const QList<QPair<QString, QString>>& entries);
  void addActions(QWidget* owner);
  void onCurrentItemChanged(QTreeWidgetItem* item);
  int fittedWidth() const;

  ViewPages* pages_;
  QFont normalFont_;
};

}  // namespace attnlab::ui
