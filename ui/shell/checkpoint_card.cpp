#include "ui/shell/checkpoint_card.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>

#include "core/compute/heap_policy.h"
#include "core/model/trace_memory.h"

namespace attnlab::ui {
namespace {

QString bytes(std::uint64_t n) { return QString::fromStdString(humanBytes(static_cast<double>(n))); }
QString count(long long n) { return QLocale(QLocale::English).toString(n); }

}  // namespace

CheckpointCard::CheckpointCard(QWidget* parent) : QGroupBox(tr("Checkpoint"), parent) {
  setObjectName("checkpointCard");
  form_ = new QFormLayout(this);
  form_->setRowWrapPolicy(QFormLayout::DontWrapRows);
  name_ = new QLabel;
  name_->setObjectName("cardName");
  name_->setWordWrap(true);
  QFont bold = name_->font();
  bold.setBold(true);
  name_->setFont(bold);
  failure_ = new QLabel;
  failure_->setObjectName("cardFailure");
  failure_->setWordWrap(true);
  failure_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  failure_->setStyleSheet("color: #b2182b;");
  failure_->hide();
  form_->addRow(failure_);
  form_->addRow(name_);
  row("cardFamily", tr("Family"), tr("config.json's model type, and how its attention is masked."));
  row("cardLayers", tr("Layers"), tr("Number of stacked blocks."));
  row("cardHeads", tr("Heads"),
      tr("Query heads per layer, and the key/value heads they share (grouped-query attention: each group of query "
         "heads reads one head's keys and values)."));
  row("cardWidths", tr("Widths"), tr("Width of the token vectors, of each head, and of the MLP's hidden layer."));
  row("cardVocabulary", tr("Vocabulary"), tr("Rows of the embedding table."));
  row("cardParameters", tr("Parameters"), tr("Elements of every stored weight tensor (a tied embedding counts once)."));
  row("cardWindows", tr("Windows"),
      tr("Sliding attention windows: with a window of W a query sees only its last W keys. “none”: every earlier "
         "token (or, for an encoder, every token)."));
  row("cardPositions", tr("Positions"), tr("The longest input, and how positions enter the model."));
  row("cardGeneration", tr("Generation"),
      tr("The encoder–decoder folder's rules for choosing tokens (generation_config.json, else config.json), which "
         "Translate, Generate N and Next token apply as Hugging Face's generate() does."));
  row("cardDtype", tr("dtype"),
      tr("How the weights are stored in the files; the program computes in F32 whatever they are stored in."));
  row("cardFiles", tr("Files"), tr("The files the model was read from, in the order they are read."));
  row("cardWeights", tr("Weights"), tr("Bytes of every weight tensor as stored (sum of the tensors' sizes)."));
  row("cardResident", tr("Resident"),
      tr("The whole program's resident memory from /proc/self/statm (model, traces, window), re-read on every "
         "result — not the model alone."));
}

QLabel* CheckpointCard::row(const char* objectName, const QString& label, const QString& tip) {
  auto* value = new QLabel;
  value->setObjectName(objectName);
  value->setWordWrap(true);
  value->setTextInteractionFlags(Qt::TextSelectableByMouse);  // a file name or a size can be copied
  value->setToolTip(tip);
  auto* caption = new QLabel(label);
  caption->setToolTip(tip);
  form_->addRow(caption, value);
  values_[objectName] = value;
  return value;
}

int CheckpointCard::preferredWidth() const {
  const QFontMetrics fm(font());
  int label = 0;
  for (int r = 0; r < form_->rowCount(); ++r)
    if (QLayoutItem* item = form_->itemAt(r, QFormLayout::LabelRole))
      if (item->widget()) label = std::max(label, item->widget()->sizeHint().width());
  const QMargins m = contentsMargins();
  return label + form_->horizontalSpacing() + fm.averageCharWidth() * 24 + m.left() + m.right() +
         form_->contentsMargins().left() + form_->contentsMargins().right();
}

void CheckpointCard::showLoading() {
  setFailure({});
  showNoCard(tr("A checkpoint is loading: only the selection below applies."));
}

void CheckpointCard::showNoCard(const QString& why) {
  name_->setText(why);
  name_->setToolTip({});
  for (auto& [name, label] : values_) label->clear();
}

void CheckpointCard::setFailure(const QString& text) {
  failure_->setText(text);
  failure_->setVisible(!text.isEmpty());
}

QString CheckpointCard::failure() const { return failure_->text(); }

void CheckpointCard::showCard(const ModelCard& c, const QString& name) {
  name_->setText(name);
  name_->setToolTip(QString::fromStdString(c.source));
  if (c.encoderDecoder) {
    showEncDecSizes(c);
  } else {
    values_["cardFamily"]->setText(tr("%1 · %2, %3")
                                       .arg(QString::fromStdString(c.family), QString::fromStdString(c.architecture),
                                            c.causal ? tr("causal") : tr("bidirectional")));
    values_["cardLayers"]->setText(QString::number(c.layers));
    values_["cardHeads"]->setText(c.kvHeads == c.heads ? tr("%1, each with its own keys and values").arg(c.heads)
                                                       : tr("%1 query, %2 kv (groups of %3)")
                                                             .arg(c.heads)
                                                             .arg(c.kvHeads)
                                                             .arg(c.kvHeads > 0 ? c.heads / c.kvHeads : 0));
    QString widths = tr("d<sub>model</sub> %1 · d<sub>head</sub> %2").arg(c.dModel).arg(c.dHead);
    widths += c.dInner > 0 ? tr(" · MLP %1").arg(c.dInner) : tr(" · no MLP");
    values_["cardWidths"]->setText(widths);
    values_["cardVocabulary"]->setText(count(c.vocab));
  }
  values_["cardParameters"]->setText(count(c.parameters));
  const std::string windows = describeWindows(c.windows);
  values_["cardWindows"]->setText(windows != "none"  ? QString::fromStdString(windows)
                                  : c.encoderDecoder ? tr("none: a source token sees the whole source, a target token "
                                                          "every earlier one and the whole source")
                                  : c.causal         ? tr("none: each token sees every earlier one")
                                                     : tr("none: each token sees every token"));
  values_["cardPositions"]->setText(tr("%1 · %2").arg(c.positions > 0 ? count(c.positions) : tr("any length"),
                                                      QString::fromStdString(c.positionKind)));
  values_["cardGeneration"]->setText(c.generation.empty() ? tr("greedy or sampled; the folder sets no rules")
                                                          : QString::fromStdString(c.generation));
  form_->setRowVisible(values_["cardGeneration"], c.encoderDecoder);
  const QString dtypes = QString::fromStdString(describeDtypes(c.dtypeBytes));
  values_["cardDtype"]->setText(dtypes == "F32" || dtypes.isEmpty() ? tr("F32")
                                                                    : tr("%1, computed in F32").arg(dtypes));
  QStringList files;
  for (const ModelCardFile& f : c.files) files << tr("%1 · %2").arg(QString::fromStdString(f.name), bytes(f.bytes));
  values_["cardFiles"]->setText(files.isEmpty() ? QString::fromStdString(c.source) : files.join('\n'));
  values_["cardFiles"]->setToolTip(QString::fromStdString(c.source));
  values_["cardWeights"]->setText(tr("%1 as stored").arg(bytes(c.weightBytes)));
  refreshMemory();
}

void CheckpointCard::showEncDecSizes(const ModelCard& c) {
  values_["cardFamily"]->setText(tr("%1 · encoder–decoder: bidirectional encoder, causal decoder with "
                                    "cross-attention")
                                     .arg(QString::fromStdString(c.family)));
  values_["cardLayers"]->setText(tr("%1 encoder + %2 decoder").arg(c.encoderLayers).arg(c.layers));
  values_["cardHeads"]->setText(
      c.encoderHeads == c.heads
          ? tr("%1 per attention (each with its own keys and values)").arg(c.heads)
          : tr("encoder %1, decoder %2 (each with its own keys and values)").arg(c.encoderHeads).arg(c.heads));
  QString widths = tr("d<sub>model</sub> %1 · d<sub>head</sub> ").arg(c.dModel);
  widths += c.encoderDHead == c.dHead ? QString::number(c.dHead) : tr("%1 / %2").arg(c.encoderDHead).arg(c.dHead);
  widths += c.encoderDInner == c.dInner ? tr(" · MLP %1").arg(c.dInner)
                                        : tr(" · MLP %1 / %2").arg(c.encoderDInner).arg(c.dInner);
  values_["cardWidths"]->setText(widths);
  values_["cardVocabulary"]->setText(c.sharedVocabulary
                                         ? tr("%1, shared by source and target").arg(count(c.vocab))
                                         : tr("source %1 · target %2").arg(count(c.sourceVocab), count(c.vocab)));
}

void CheckpointCard::refreshMemory() {
  const std::uint64_t resident = static_cast<std::uint64_t>(residentBytes());
  values_["cardResident"]->setText(resident > 0 ? tr("%1 (whole program)").arg(bytes(resident))
                                                : tr("unknown (no /proc/self/statm)"));
}

}  // namespace attnlab::ui
