#pragma once
// "head_contexts" (issue 17): the selected head's strongest contexts over the user's corpus, by output norm or by
// its strongest non-BOS attention edge, each a snippet with the head's attention drawn over it; a click loads the
// snippet as the sentence (an undoable edit). "Open corpus…" (files or a folder) and files dropped on the view set
// params.atlas.corpus; the shared AtlasStore scans it in the background, the rows refining as it reads. A file the
// scan skipped is listed with its reason.
#include <QComboBox>
#include <QLabel>
#include <QToolButton>

#include "ui/views/heads/atlas_view.h"

namespace attnlab::ui {

class ContextList;

class HeadContextsView : public AtlasView {
  Q_OBJECT
 public:
  explicit HeadContextsView(AtlasStore* store, QWidget* parent = nullptr);
  QString viewName() const override { return "head_contexts"; }
  QString displayName() const override { return tr("Head contexts"); }
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;

  ContextList* list() const { return list_; }
  QComboBox* kindBox() const { return kind_; }
  QString notesText() const { return notes_->text(); }
  /// Sets params.atlas.corpus to `paths` (files or folders), through paramsRequested.
  void openCorpus(const QStringList& paths);

 protected:
  void drawAtlas(const std::shared_ptr<const HeadAtlas>& atlas) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  QComboBox* kind_;
  QToolButton* open_;
  ContextList* list_;
  QLabel* notes_;
  QString title_;
};

}  // namespace attnlab::ui
