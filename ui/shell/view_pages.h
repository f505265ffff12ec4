#pragma once
// The pages of the window's views, one shown at a time (the view navigator picks which). Every view of
// viewNames() has a page of its own, in a scroll area, except the heatmap and the model view: they
// share one page side by side (the class sees the selected head and all heads at once), and naming one
// of them gives it the larger half. Training is a page too, named "training": it is no TraceView (it
// trains its own model), but lessons and sessions name it like one.
#include <QStackedWidget>
#include <map>
#include <vector>

#include "ui/views/common/trace_view.h"

class QSplitter;

namespace attnlab::ui {

class TrainingView;

/// The page name of the training view (selection.view of a session saved on that page).
inline constexpr char kTrainingPage[] = "training";

class ViewPages : public QStackedWidget {
  Q_OBJECT
 public:
  /// Creates every view of viewNames() and the training view.
  explicit ViewPages(QWidget* parent = nullptr);

  /// Every view, in viewNames() order.
  const std::vector<TraceView*>& views() const { return views_; }
  TrainingView* training() const { return training_; }
  /// The view with this export name, or nullptr (also for "training").
  TraceView* view(const QString& name) const;
  /// Every page name: viewNames() and "training".
  QStringList names() const;
  /// What the navigator lists for a page: the view's displayName(), "Training".
  QString title(const QString& name) const;
  /// Shows the page of `name`; false (and nothing changes) for an unknown name.
  bool showPage(const QString& name);
  /// The name of the page shown ("heatmap" or "model" on the shared page).
  QString current() const { return current_; }
  /// The view named current(), nullptr on the training page.
  TraceView* currentView() const { return view(current_); }
  /// The heatmap and model view's page.
  QSplitter* attentionSplit() const { return attentionSplit_; }

 private:
  QWidget* pageOf(const QString& name) const;

  std::vector<TraceView*> views_;
  TrainingView* training_;
  QSplitter* attentionSplit_;
  QString current_;
  /// Splitter sizes of the shared page per name: "heatmap" 3:2, "model" 2:3, or what the user dragged.
  std::map<QString, QList<int>> splitSizes_;
};

}  // namespace attnlab::ui
