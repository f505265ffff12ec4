#include "ui/views/heads/atlas_view.h"

#include <QCoreApplication>
#include <QHBoxLayout>

#include "ui/views/heads/atlas_labels.h"

namespace attnlab::ui {

AtlasView::AtlasView(AtlasStore* store, QWidget* parent) : TraceView(parent), store_(store) {
  status_ = new QWidget;
  status_->setProperty(kScreenOnlyProperty, true);
  auto* row = new QHBoxLayout(status_);
  row->setContentsMargins(0, 0, 0, 0);
  statusText_ = new QLabel;
  statusText_->setWordWrap(true);
  bar_ = new QProgressBar;
  bar_->setRange(0, 1000);
  bar_->setMaximumWidth(180);
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setToolTip(tr("Stop reading the corpus; the contexts found so far stay"));
  row->addWidget(statusText_, 1);
  row->addWidget(bar_);
  scanHere_ = new QPushButton(tr("Scan for this model"));
  scanHere_->setObjectName("scanForThisModel");
  scanHere_->setToolTip(tr("Read the corpus with this model too (it takes as long as the first scan did)"));
  row->addWidget(cancel_);
  row->addWidget(scanHere_);
  connect(cancel_, &QPushButton::clicked, store_, &AtlasStore::cancelScan);
  connect(scanHere_, &QPushButton::clicked, store_, &AtlasStore::scanForThisModel);
  connect(store_, &AtlasStore::atlasChanged, this, [this] {
    if (result_) drawAtlas(atlasFits() ? atlas() : nullptr);
    // The finished scan's atlas arrives after the job says it is idle: the caption's corpus size follows it, or it
    // kept the last refinement's while the contexts' title had the final one (issue 31).
    updateStatus();
  });
  connect(store_, &AtlasStore::stateChanged, this, &AtlasView::updateStatus);
  connect(store_, &AtlasStore::progress, this, [this](const QString& what, double f) {
    statusText_->setText(what + "…");
    bar_->setValue(static_cast<int>(f * 1000));
  });
  updateStatus();
}

void AtlasView::showResult(const ResultPtr& result) {
  if (!result || !result->ok()) return;
  result_ = result;
  store_->request(result);
  drawAtlas(atlasFits() ? atlas() : nullptr);
  updateStatus();
}

bool AtlasView::atlasFits() const {
  const auto a = atlas();
  return a && result_ && result_->ok() && a->layers == result_->trace().layerCount() &&
         a->heads == result_->trace().headCount();
}

void AtlasView::updateStatus() {
  const bool probe = store_->probeBusy(), scan = store_->scanBusy();
  bar_->setVisible(probe || scan);
  cancel_->setVisible(scan);
  const QString offer = store_->scanOffer();
  scanHere_->setVisible(!probe && !scan && !offer.isEmpty());
  if (!store_->error().isEmpty())
    statusText_->setText(store_->error());
  else if (!probe && !scan && !offer.isEmpty())
    statusText_->setText(tr("Corpus scanned for %1; this model has not read it.").arg(offer));
  else if (probe)
    statusText_->setText(tr("Scoring every head on the probe…"));
  else if (scan)
    statusText_->setText(tr("Reading the corpus…"));
  else
    statusText_->setText(atlas() && probeCaptionInStatus_ ? probeCaption(*atlas()) : QString());
  if (!probe && !scan) bar_->setValue(0);
}

QString AtlasView::statusText() const { return statusText_->text(); }

void AtlasView::waitForAnalyses() {
  store_->waitForIdle();
  TraceView::waitForAnalyses();
}

bool AtlasView::isReady() const { return (!result_ || store_->isReadyFor(*result_)) && TraceView::isReady(); }

void AtlasView::requestAblation(const std::vector<std::pair<int, int>>& heads) {
  if (!result_ || heads.empty()) return;
  Params p = result_->params;
  for (const auto& [l, h] : heads)
    if (!isAblated(p.prediction, {l, h})) toggleAblation(p.prediction, {l, h});
  emit paramsRequested(p);
}

std::vector<int> AtlasView::ablatedIndices() const {
  std::vector<int> out;
  const auto a = atlas();
  if (!result_ || !a) return out;
  for (const HeadRef& h : result_->params.prediction.ablate)
    if (h.layer < a->layers && h.head < a->heads) out.push_back(h.layer * a->heads + h.head);
  return out;
}

int AtlasView::selectedIndex() const {
  const auto a = atlas();
  if (!result_ || !a || a->heads == 0) return -1;
  return result_->layer() * a->heads + result_->head();
}

}  // namespace attnlab::ui
