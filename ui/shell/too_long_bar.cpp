#include "ui/shell/too_long_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPalette>
#include <QPushButton>

namespace attnlab::ui {

TooLongBar::TooLongBar(QWidget* parent) : QWidget(parent) {
  setObjectName("tooLongBar");
  message_ = new QLabel;
  message_->setObjectName("tooLongMessage");
  message_->setWordWrap(true);
  keep_ = new QPushButton;
  keep_->setObjectName("keepLastTokens");
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 2, 6, 2);
  layout->addWidget(message_, 1);
  layout->addWidget(keep_);
  // Colours through the palette, not a style sheet: a style sheet fixes its widgets' fonts at polish time, so
  // presentation mode's large font never reached the strip.
  QPalette pal = palette();
  pal.setColor(QPalette::Window, QColor("#fff3cd"));
  setPalette(pal);
  setAutoFillBackground(true);
  QPalette text = message_->palette();
  text.setColor(QPalette::WindowText, QColor("#664d03"));
  message_->setPalette(text);
  connect(keep_, &QPushButton::clicked, this, [this] { emit keepRequested(refused_, tail_, target_); });
  hide();
}

void TooLongBar::setResult(const ResultPtr& result) {
  if (!result || result->ok() || !result->textTooLong()) {
    hide();
    tail_.clear();
    refused_.clear();
    return;
  }
  QLocale loc = QLocale::c();
  loc.setNumberOptions({});  // 2,263 with the group separator
  const bool encdec = result->tooLongText == "source";
  target_ = result->tooLongText == "target";
  refused_ = target_ ? result->params.target : result->params.sentence;
  tail_ = result->fittingTail;
  const QString tokens = loc.toString(result->textTokens), positions = loc.toString(result->modelPositions);
  if (target_)
    message_->setText(tr("The target has %1 tokens with the decoder's start token, longer than the model's %2 "
                         "positions: the views show the last result that ran. Nothing of the target is cut until you "
                         "ask.")
                          .arg(tokens, positions));
  else if (encdec)  // the source of an encoder–decoder
    message_->setText(tr("The source has %1 tokens, longer than the model's %2 positions: the views show the last "
                         "result that ran. Nothing of the source is cut until you ask.")
                          .arg(tokens, positions));
  else
    message_->setText(tr("The text has %1 tokens, longer than the model's %2 positions: the views show the last "
                         "result that ran. Nothing of the text is cut until you ask.")
                          .arg(tokens, positions));
  // The target's start token takes one position: its text keeps one token fewer.
  const QString kept = loc.toString(result->modelPositions - (target_ ? 1 : 0));
  keep_->setText(target_  ? tr("Keep the target's last %1 tokens").arg(kept)
                 : encdec ? tr("Keep the source's last %1 tokens").arg(kept)
                          : tr("Keep the last %1 tokens").arg(kept));
  keep_->setToolTip(
      tr("Cuts the text in the editor to its last %1 tokens (Undo brings the whole text back).").arg(kept));
  show();
}

}  // namespace attnlab::ui
