#pragma once
// Base of the three Heads views: each draws the atlas of one shared AtlasStore (atlas_store.h) for the result it
// was shown, says what is being computed (a status line with a progress bar and, while the corpus is read, Cancel),
// and waits for the store before `attnlab export` takes its figure.
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <memory>

#include "ui/views/common/trace_view.h"
#include "ui/views/heads/atlas_store.h"

namespace attnlab::ui {

class AtlasView : public TraceView {
  Q_OBJECT
 public:
  AtlasView(AtlasStore* store, QWidget* parent = nullptr);
  void showResult(const ResultPtr& result) override;
  void waitForAnalyses() override;
  bool isReady() const override;
  AtlasStore* store() const { return store_; }
  QPushButton* scanHereButton() const { return scanHere_; }
  QString statusText() const;

 protected:
  /// Draws the store's atlas (null: none yet; the status line says why).
  virtual void drawAtlas(const std::shared_ptr<const HeadAtlas>& atlas) = 0;
  /// The status line with its progress bar and Cancel, for the subclass's layout (screen only).
  QWidget* statusBar() const { return status_; }
  const ResultPtr& result() const { return result_; }
  std::shared_ptr<const HeadAtlas> atlas() const { return store_->atlas(); }
  /// The atlas matches the shown model (layers × heads): an atlas of the previous model is not drawn.
  bool atlasFits() const;
  /// Emits paramsRequested with the heads (layer, head) added to params.prediction.ablate.
  void requestAblation(const std::vector<std::pair<int, int>>& heads);
  /// Crossed heads: params.prediction.ablate as layer-major indices; the selected head's index.
  std::vector<int> ablatedIndices() const;
  int selectedIndex() const;
  /// A view whose own caption names the probe (the scatter) sets this false: the idle status line then stays
  /// empty instead of saying it a second time.
  void setProbeCaptionInStatus(bool on) { probeCaptionInStatus_ = on; }

 private:
  void updateStatus();

  AtlasStore* store_;
  void dropResult() override {
    store_->forget(result_);
    result_.reset();
  }
  ResultPtr result_;
  QWidget* status_;
  QLabel* statusText_;
  QProgressBar* bar_;
  QPushButton* cancel_;
  QPushButton* scanHere_;  ///< "Scan for this model": the corpus was scanned for another model (issue 31)
  bool probeCaptionInStatus_ = true;
};

}  // namespace attnlab::ui
