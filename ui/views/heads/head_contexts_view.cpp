#include "ui/views/heads/head_contexts_view.h"

#include <QDragEnterEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QMenu>
#include <QMimeData>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ui/plots/flow_layout.h"
#include "ui/views/heads/atlas_labels.h"
#include "ui/views/heads/context_list.h"
#include "ui/views/heads/heads_numbers.h"

namespace attnlab::ui {

HeadContextsView::HeadContextsView(AtlasStore* store, QWidget* parent) : AtlasView(store, parent) {
  setAcceptDrops(true);
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QWidget;
  controls->setProperty(kScreenOnlyProperty, true);
  auto* row = new FlowLayout(controls);  // wraps on a narrow view
  kind_ = new QComboBox;
  kind_->addItem(tr("by output norm"), "output_norm");
  kind_->addItem(tr("by strongest attention edge"), "attention_edge");
  kind_->setToolTip(
      tr("Rank the contexts by ‖the head's output‖ at the query, or by its largest attention weight "
         "to a key other than the first token"));
  open_ = new QToolButton;
  open_->setText(tr("Open corpus…"));
  open_->setToolTip(
      tr("Text files or a folder of them, read in windows of the model's context in the background "
         "(or drop files on this view)"));
  open_->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(open_);
  menu->addAction(tr("Files…"), this, [this] {
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Open corpus files"), {}, tr("Text (*.txt *.md *.text);;All files (*)"));
    if (!files.isEmpty()) openCorpus(files);
  });
  menu->addAction(tr("Folder…"), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a corpus folder"));
    if (!dir.isEmpty()) openCorpus({dir});
  });
  menu->addAction(tr("Forget the corpus"), this, [this] { openCorpus({}); });
  open_->setMenu(menu);
  row->addLabelled(tr("&Rank"), kind_);
  row->addWidget(new QLabel(tr("Click a context to load it as the sentence")));
  row->addWidget(open_);
  layout->addWidget(controls);
  list_ = new ContextList;
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setWidget(list_);
  layout->addWidget(scroll, 1);
  notes_ = new QLabel;
  notes_->setWordWrap(true);
  layout->addWidget(notes_);
  layout->addWidget(statusBar());

  connect(kind_, &QComboBox::currentIndexChanged, this, [this] { drawAtlas(atlasFits() ? atlas() : nullptr); });
  connect(list_, &ContextList::rowClicked, this, [this](int i) {
    if (!result() || i < 0 || i >= static_cast<int>(list_->contexts().size())) return;
    Params p = result()->params;
    p.sentence = list_->contexts()[static_cast<size_t>(i)].text;
    p.selection.pinned.clear();  // pins named tokens of the old sentence
    emit paramsRequested(p);
  });
}

void HeadContextsView::openCorpus(const QStringList& paths) {
  if (!result()) return;
  Params p = result()->params;
  p.atlas.corpus.clear();
  for (const QString& path : paths) p.atlas.corpus.push_back(path.toStdString());
  emit paramsRequested(p);
}

void HeadContextsView::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void HeadContextsView::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) paths << url.toLocalFile();
  if (paths.isEmpty()) return;
  event->acceptProposedAction();
  openCorpus(paths);
}

void HeadContextsView::drawAtlas(const std::shared_ptr<const HeadAtlas>& atlas) {
  if (!result()) return;
  const int layer = result()->layer(), head = result()->head();
  const QString kind = kind_->currentData().toString();
  std::vector<StrongContext> rows;
  if (atlas)
    if (const auto it = atlas->topExamples.find(headKey(layer, head)); it != atlas->topExamples.end())
      for (const StrongContext& c : it->second)
        if (QString::fromStdString(c.kind) == kind) rows.push_back(c);
  title_ = tr("Head %1: strongest contexts %2").arg(headLabel(layer, head), kind_->currentText());
  if (atlas && atlas->corpusTokens > 0) title_ += tr(" (%1 tokens read)").arg(atlas->corpusTokens);
  list_->setContexts(title_, std::move(rows));
  QStringList notes;
  if (atlas)
    for (const std::string& note : atlas->notes) notes << QString::fromStdString(note);
  const auto& corpus = result()->params.atlas.corpus;
  if (corpus.empty()) notes.prepend(tr("No corpus: open text files or a folder, or drop them here."));
  notes_->setText(notes.join('\n'));
}

void HeadContextsView::setFontScale(double scale) {
  list_->setFontScale(scale);
  QFont f = notes_->font();
  f.setPointSizeF(9 * scale);
  notes_->setFont(f);
}

ViewNumbers HeadContextsView::numbers(const ComputeResult& result) const {
  ViewNumbers n = numbersFrame(result, title_);
  if (const auto a = atlas(); a && atlasFits()) appendContexts(n, *a, result.layer(), result.head());
  return n;
}

}  // namespace attnlab::ui
