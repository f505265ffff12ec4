#include "ui/shell/view_navigator.h"

#include <QAction>
#include <QDockWidget>
#include <QHeaderView>
#include <QMainWindow>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QTimer>

#include "ui/shell/view_pages.h"

namespace attnlab::ui {
namespace {

constexpr int kNameRole = Qt::UserRole;  ///< an entry's page name; empty on chapter titles

bool isChapter(const QModelIndex& index) { return index.isValid() && !index.parent().isValid(); }

}  // namespace

const std::vector<ViewNavigator::Chapter>& ViewNavigator::chapters() {
  // One line per chapter; the head atlas adds its own (Heads) here.
  static const std::vector<Chapter> table = {
      {QT_TR_NOOP("Attention"),
       {{"heatmap", QT_TR_NOOP("Heatmap")}, {"model", QT_TR_NOOP("Model view")}, {"headview"}, {"compare"}, {"cross"}}},
      {QT_TR_NOOP("Inside a head"), {{"qkv"}, {"outputs"}}},
      {QT_TR_NOOP("Variants"), {{"variants"}, {"complexity"}, {"feature-maps"}, {"head-size"}}},
      {QT_TR_NOOP("Rank and spectra"), {{"spectrum"}, {"rank-table"}, {"rank-demo"}}},
      {QT_TR_NOOP("Depth"), {{"collapse"}, {"paths"}}},
      {QT_TR_NOOP("Prediction"), {{"prediction"}, {"attribution"}, {"patching"}}},
      {QT_TR_NOOP("Heads"), {{"heads"}, {"similar_heads"}, {"head_contexts"}}},
      {QT_TR_NOOP("Training"), {{kTrainingPage}}},
  };
  return table;
}

ViewNavigator::ViewNavigator(ViewPages* pages, QWidget* parent) : QTreeWidget(parent), pages_(pages) {
  setObjectName("viewNavigator");
  setHeaderHidden(true);
  setColumnCount(1);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setUniformRowHeights(true);
  // A click leaves the keyboard where it was (the sentence, mostly), as a tab bar did; Tab reaches it.
  setFocusPolicy(Qt::TabFocus);
  setToolTip(tr("Ctrl+1…9: a chapter's first view · Ctrl+PgDown / Ctrl+PgUp: next / previous view"));
  normalFont_ = font();

  const QStringList names = pages_->names();
  QSet<QString> listed;
  for (const Chapter& c : chapters()) {
    QList<QPair<QString, QString>> entries;
    for (const Entry& e : c.entries) {
      const QString name = QString::fromUtf8(e.view);
      if (!names.contains(name)) continue;  // a view this build does not have
      entries.append({name, e.label ? tr(e.label) : pages_->title(name)});
      listed.insert(name);
    }
    addChapter(tr(c.title), entries);
  }
  QList<QPair<QString, QString>> rest;
  for (const QString& name : names)
    if (!listed.contains(name)) rest.append({name, pages_->title(name)});
  addChapter(tr("More"), rest);
  expandAll();

  connect(this, &QTreeWidget::currentItemChanged, this,
          [this](QTreeWidgetItem* item, QTreeWidgetItem*) { onCurrentItemChanged(item); });
  addActions(pages_);
  setFontScale(1.0);
  select(pages_->current());
}

void ViewNavigator::addChapter(const QString& title, const QList<QPair<QString, QString>>& entries) {
  if (entries.isEmpty()) return;
  auto* chapter = new QTreeWidgetItem(this, {title});
  chapter->setFlags(Qt::ItemIsEnabled);  // a heading: never the selected entry
  const int number = topLevelItemCount();
  if (number <= 9) chapter->setToolTip(0, tr("%1 (Ctrl+%2)").arg(title).arg(number));
  for (const auto& [name, label] : entries) {
    auto* item = new QTreeWidgetItem(chapter, {label});
    item->setData(0, kNameRole, name);
    item->setToolTip(0, label);  // the full title when the navigator is narrowed
  }
}

void ViewNavigator::addActions(QWidget* owner) {
  // Application-wide: they also work while the sentence editor, a floating panel or the lesson has focus.
  const auto add = [this, owner](const QString& text, const QKeySequence& keys, auto slot) {
    auto* a = new QAction(text, owner);
    a->setShortcut(keys);
    a->setShortcutContext(Qt::ApplicationShortcut);
    connect(a, &QAction::triggered, this, slot);
    owner->addAction(a);
  };
  add(tr("&Next view"), QKeySequence(Qt::CTRL | Qt::Key_PageDown), [this] { step(+1); });
  add(tr("&Previous view"), QKeySequence(Qt::CTRL | Qt::Key_PageUp), [this] { step(-1); });
  for (int i = 0; i < std::min(9, topLevelItemCount()); ++i)
    add(tr("&%1 %2").arg(i + 1).arg(topLevelItem(i)->text(0)), QKeySequence(Qt::CTRL | (Qt::Key_1 + i)),
        [this, i] { goToChapter(i); });
}

bool ViewNavigator::select(const QString& name) {
  QTreeWidgetItem* item = entry(name);
  if (!item) return false;
  expandItem(item->parent());  // a view in a collapsed chapter opens it
  setCurrentItem(item);
  scrollToItem(item);
  return true;
}

QString ViewNavigator::current() const { return pages_->current(); }

QStringList ViewNavigator::order() const {
  QStringList names;
  for (int c = 0; c < topLevelItemCount(); ++c)
    for (int i = 0; i < topLevelItem(c)->childCount(); ++i)
      names << topLevelItem(c)->child(i)->data(0, kNameRole).toString();
  return names;
}

QTreeWidgetItem* ViewNavigator::entry(const QString& name) const {
  for (int c = 0; c < topLevelItemCount(); ++c)
    for (int i = 0; i < topLevelItem(c)->childCount(); ++i)
      if (topLevelItem(c)->child(i)->data(0, kNameRole).toString() == name) return topLevelItem(c)->child(i);
  return nullptr;
}

void ViewNavigator::goToChapter(int i) {
  if (QTreeWidgetItem* c = chapter(i)) select(c->child(0)->data(0, kNameRole).toString());
}

void ViewNavigator::step(int direction) {
  const QStringList names = order();
  const int n = int(names.size());
  const int at = std::max(0, int(names.indexOf(current())));
  select(names[((at + direction) % n + n) % n]);
}

void ViewNavigator::onCurrentItemChanged(QTreeWidgetItem* item) {
  if (!item) return;
  const QString name = item->data(0, kNameRole).toString();
  if (pages_->showPage(name)) emit currentChanged(name);
}

QModelIndex ViewNavigator::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) {
  const QModelIndex from = currentIndex();
  QModelIndex to = QTreeWidget::moveCursor(action, modifiers);
  if (!isChapter(to)) return to;
  // Chapter titles are headings: the arrow keys pass over them in the direction they go; Left, which
  // would climb to the chapter, stays.
  if (action == MoveLeft || action == MoveRight) return from;
  const bool up = action == MoveUp || action == MovePageUp || action == MovePrevious || action == MoveEnd;
  while (isChapter(to)) to = up ? indexAbove(to) : indexBelow(to);
  return to.isValid() ? to : from;
}

void ViewNavigator::mousePressEvent(QMouseEvent* event) {
  // A click on a chapter's title goes to its first view (as Ctrl+N does); its arrow still folds it.
  const QPoint at = event->position().toPoint();
  QTreeWidgetItem* item = itemAt(at);
  if (event->button() == Qt::LeftButton && item && !item->parent() && visualItemRect(item).contains(at)) {
    goToChapter(indexOfTopLevelItem(item));
    event->accept();
    return;
  }
  QTreeWidget::mousePressEvent(event);
}

int ViewNavigator::fittedWidth() const {
  // Indentation per level, the text, the item's margins (the style's focus frame, both sides), the
  // frame and a vertical scroll bar (presentation fonts may need one).
  const int margin = 2 * (style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, this) + 1) + 4;
  int widest = 0;
  for (int c = 0; c < topLevelItemCount(); ++c) {
    QTreeWidgetItem* chapter = topLevelItem(c);
    widest = std::max(widest, indentation() + QFontMetrics(chapter->font(0)).horizontalAdvance(chapter->text(0)));
    for (int i = 0; i < chapter->childCount(); ++i)
      widest = std::max(widest, 2 * indentation() + fontMetrics().horizontalAdvance(chapter->child(i)->text(0)));
  }
  return widest + margin + 2 * frameWidth() + verticalScrollBar()->sizeHint().width();
}

QSize ViewNavigator::sizeHint() const { return {fittedWidth(), QTreeWidget::sizeHint().height()}; }

void ViewNavigator::setFontScale(double scale) {
  QFont f = normalFont_;
  f.setPointSizeF(normalFont_.pointSizeF() * scale);
  setFont(f);
  f.setBold(true);
  for (int c = 0; c < topLevelItemCount(); ++c) topLevelItem(c)->setFont(0, f);
  // Normally it may be narrowed to half (entries elide, their tooltips keep the title); in
  // presentation mode never: the back row reads every entry.
  const int fitted = fittedWidth();
  setMinimumWidth(scale > 1 ? fitted : fitted / 2);
  updateGeometry();
  // The dock fits the entries again, once the window has laid out what else presentation mode changed
  // (the parameter panel beside it hides, and its width would otherwise go to the navigator).
  QTimer::singleShot(0, this, [this] {
    auto* dock = qobject_cast<QDockWidget*>(parentWidget());
    if (auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr)
      window->resizeDocks({dock}, {dock->sizeHint().width()}, Qt::Horizontal);
  });
}

void ViewNavigator::rememberIn(const QString& key) {
  const QString saved = QSettings().value(key).toString();
  if (!saved.isEmpty()) select(saved);
  connect(this, &ViewNavigator::currentChanged, this, [key](const QString& name) { QSettings().setValue(key, name); });
}

}  // namespace attnlab::ui
