#include "ui/shell/target_bar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "ui/shell/sentence_editor.h"
#include "ui/views/common/encdec_result.h"

namespace attnlab::ui {
namespace {

/// Translate's length limit: twice the source plus some room (a translation is rarely longer), within the positions.
int translationBudget(const ComputeResult& r) {
  const EncDecRun* run = encDecRunOf(r);
  return run ? 2 * static_cast<int>(run->source.ids.size()) + 16 : 64;
}

}  // namespace

TargetBar::TargetBar(SentenceEditor* source, QWidget* parent)
    : QWidget(parent), source_(source), sourcePlaceholder_(source->placeholderText()) {
  target_ = new SentenceEditor;
  target_->setObjectName("targetEditor");
  target_->setFont(source->font());
  target_->setPlaceholderText(tr("Target: type a translation, or press Translate…"));
  target_->setToolTip(
      tr("The target text, read by the decoder. Typed, the views show how the model reads that translation "
         "(teacher forcing); Translate and Next token let the model write it."));
  translate_ = new QPushButton(tr("Translate"));
  translate_->setToolTip(tr("Replace the target by the model's greedy translation of the source"));
  next_ = new QPushButton(tr("Next token"));
  next_->setToolTip(tr("Append the model's most likely next token to the target"));
  stack_ = new QComboBox;
  stack_->addItem(tr("encoder"), QStringLiteral("encoder"));
  stack_->addItem(tr("decoder"), QStringLiteral("decoder"));
  stack_->addItem(tr("cross"), QStringLiteral("cross"));  // target rows × source columns
  stack_->setToolTip(
      tr("The stack the single-text views (heatmap, head view, Q/K/V, …) show; cross: the decoder's "
         "cross-attention, target tokens reading source tokens"));
  note_ = new QLabel;
  note_->setObjectName("targetNote");
  note_->setWordWrap(true);

  // One row (the editor and its buttons) under the source editor; the note takes a second only while it speaks.
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(target_, 1);
  row->addWidget(translate_);
  row->addWidget(next_);
  row->addWidget(stack_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(row);
  layout->addWidget(note_);
  note_->hide();
  hide();

  connect(target_, &SentenceEditor::textEdited, this, &TargetBar::targetEdited);
  connect(translate_, &QPushButton::clicked, this, &TargetBar::translate);
  connect(next_, &QPushButton::clicked, this, &TargetBar::nextToken);
  connect(stack_, QOverload<int>::of(&QComboBox::activated), this,
          [this](int i) { emit stackChosen(stack_->itemData(i).toString().toStdString()); });
  connect(&watcher_, &QFutureWatcher<TranslationJob>::finished, this, &TargetBar::translated);
}

void TargetBar::setResult(const ResultPtr& result) {
  if (!result->ok()) return;  // the status bar names the problem; the bar stays as it was
  const bool encdec = encDecRunOf(*result) != nullptr;
  last_ = encdec ? result : nullptr;
  setVisible(encdec);
  source_->setPlaceholderText(encdec ? tr("Source: type the sentence to translate…") : sourcePlaceholder_);
  // An empty target is no error: the decoder reads its start token alone, and the editor's placeholder says what to do.
  if (encdec && !translating()) setNote({});
}

void TargetBar::setNote(const QString& text) {
  note_->setText(text);
  note_->setVisible(!text.isEmpty());
}

void TargetBar::setParams(const Params& p) {
  if (target_->text().toStdString() != p.target) target_->setText(QString::fromStdString(p.target));
  const int i = stack_->findData(QString::fromStdString(p.selection.stack));
  if (i >= 0) stack_->setCurrentIndex(i);
}

void TargetBar::translate() {
  if (!last_ || translating()) return;
  auto model = encDecRunOf(*last_)->model;
  const std::string source = source_->text().toStdString();
  const int budget = translationBudget(*last_);
  translatingSource_ = source;
  translate_->setEnabled(false);
  setNote(tr("Translating…"));
  watcher_.setFuture(QtConcurrent::run([model, source, budget]() {
    TranslationJob job;
    try {
      job.translation = translateGreedy(*model, source, budget);
    } catch (const std::exception& e) {  // InputError (empty source, too long), bad_alloc
      job.error = QString::fromUtf8(e.what());
    }
    return job;
  }));
}

void TargetBar::translated() {
  translate_->setEnabled(true);
  const TranslationJob job = watcher_.result();
  if (!job.error.isEmpty()) {
    setNote(tr("⚠ Cannot translate: %1").arg(job.error));
    return;
  }
  setNote({});
  emit targetProduced(translatingSource_, job.translation.text);
}

void TargetBar::nextToken() {
  const EncDecRun* run = last_ ? encDecRunOf(*last_) : nullptr;
  if (!run) return;
  // The last result must be the run of the texts on screen: after an edit not yet run, its logits are of another text.
  if (last_->params.sentence != source_->text().toStdString() ||
      last_->params.target != target_->text().toStdString()) {
    setNote(tr("The texts changed since the last run: press again when the views have followed."));
    return;
  }
  const int id = run->nextTokenId();
  const EncDecConfig& c = run->model->model().config();
  if (id == c.eosId) {
    setNote(tr("The model ends the translation here (its next token is the end of text)."));
    return;
  }
  setNote({});
  emit targetProduced(last_->params.sentence, run->model->appendPiece(last_->params.target, id));
}

}  // namespace attnlab::ui
