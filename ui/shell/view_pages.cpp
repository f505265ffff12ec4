#include "ui/shell/view_pages.h"

#include <QScrollArea>
#include <QSplitter>

#include "ui/shell/view_factory.h"
#include "ui/views/training/training_view.h"

namespace attnlab::ui {
namespace {

/// A page that scrolls when the window is narrower than the view's controls want: a QStackedWidget is
/// as wide as its widest page, and the variants and collapse views would otherwise push the window
/// past the screen once the lesson panel opens (or fonts grow in presentation mode).
QScrollArea* scrollable(QWidget* view) {
  auto* area = new QScrollArea;
  area->setWidget(view);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

bool onSharedPage(const QString& name) { return name == "heatmap" || name == "model"; }

}  // namespace

ViewPages::ViewPages(QWidget* parent) : QStackedWidget(parent) {
  attentionSplit_ = new QSplitter(Qt::Horizontal);
  addWidget(attentionSplit_);
  for (const QString& name : viewNames()) {
    TraceView* v = createView(name);
    views_.push_back(v);
    if (onSharedPage(name)) {
      attentionSplit_->addWidget(v);
    } else {
      addWidget(scrollable(v));
    }
  }
  // The heatmap and model view as the window opens (3:2); naming the model view turns it round, and
  // a drag of the handle is kept for the name that was shown.
  splitSizes_["heatmap"] = {640, 420};
  splitSizes_["model"] = {420, 640};
  attentionSplit_->setStretchFactor(0, 3);
  attentionSplit_->setStretchFactor(1, 2);
  attentionSplit_->setSizes(splitSizes_["heatmap"]);
  training_ = new TrainingView;
  // Scrollable like the views: a hidden page's minimum counts in the stack's, and the training view's with
  // presentation mode's font (598 × 573 once polished) pushed the window past a 1280 × 720 projector.
  addWidget(scrollable(training_));
  current_ = views_.empty() ? QString() : views_.front()->viewName();
  setCurrentIndex(0);
}

TraceView* ViewPages::view(const QString& name) const {
  for (TraceView* v : views_)
    if (v->viewName() == name) return v;
  return nullptr;
}

QStringList ViewPages::names() const {
  QStringList all;
  for (TraceView* v : views_) all << v->viewName();
  all << kTrainingPage;
  return all;
}

QString ViewPages::title(const QString& name) const {
  if (name == kTrainingPage) return tr("Training");
  TraceView* v = view(name);
  return v ? v->displayName() : QString();
}

QWidget* ViewPages::pageOf(const QString& name) const {
  QWidget* v = name == kTrainingPage ? static_cast<QWidget*>(training_) : view(name);
  if (!v) return nullptr;
  for (int i = 0; i < count(); ++i)
    if (widget(i) == v || widget(i)->isAncestorOf(v)) return widget(i);
  return nullptr;
}

bool ViewPages::showPage(const QString& name) {
  QWidget* page = pageOf(name);
  if (!page) return false;
  if (onSharedPage(current_) && attentionSplit_->isVisible()) splitSizes_[current_] = attentionSplit_->sizes();
  if (onSharedPage(name) && name != current_) attentionSplit_->setSizes(splitSizes_[name]);
  current_ = name;
  setCurrentWidget(page);
  return true;
}

}  // namespace attnlab::ui
