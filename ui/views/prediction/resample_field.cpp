#include "ui/views/prediction/resample_field.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPalette>
#include <QVBoxLayout>

namespace attnlab::ui {

ResampleField::ResampleField(QWidget* parent) : QWidget(parent) {
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  auto* label = new QLabel(tr("&Resample from:"));
  edit_ = new QLineEdit;
  edit_->setPlaceholderText(tr("another text, at least as many tokens as the sentence"));
  edit_->setToolTip(
      tr("Resample ablation: each ablated head's output at position i is its output at position i of "
         "this text, run through the same model"));
  edit_->setClearButtonEnabled(true);
  label->setBuddy(edit_);
  row->addWidget(label);
  row->addWidget(edit_, 1);  // takes the view's width, never more: the window stays 1280 px wide
  column->addLayout(row);
  problem_ = new QLabel;
  problem_->setWordWrap(true);
  QPalette red = problem_->palette();  // a palette, not a style sheet: the label keeps the window's font (F11: 1.6×)
  red.setColor(QPalette::WindowText, QColor(0xb2, 0x18, 0x2b));
  problem_->setPalette(red);
  problem_->hide();
  column->addWidget(problem_);
  connect(edit_, &QLineEdit::textEdited, this, &ResampleField::edited);
}

void ResampleField::setText(const QString& text) {
  if (edit_->text() != text) edit_->setText(text);  // setText moves the cursor to the end: only when it differs
}

QString ResampleField::text() const { return edit_->text(); }

void ResampleField::setProblem(const QString& problem) {
  problem_->setText(problem);
  problem_->setVisible(!problem.isEmpty());
}

QString ResampleField::problem() const { return problem_->isHidden() ? QString() : problem_->text(); }

}  // namespace attnlab::ui
