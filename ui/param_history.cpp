#include "ui/param_history.h"

#include <QUndoCommand>

#include "core/params_json.h"

namespace attnlab::ui {

std::string changedFields(const Params& a, const Params& b) {
  const nlohmann::json ja = toJson(a), jb = toJson(b);
  std::string out;
  for (auto it = jb.begin(); it != jb.end(); ++it) {
    const auto other = ja.find(it.key());
    if (other != ja.end() && *other == it.value()) continue;
    if (it->is_object() && other != ja.end() && other->is_object()) {
      for (auto f = it->begin(); f != it->end(); ++f)
        if (!other->contains(f.key()) || (*other)[f.key()] != f.value())
          out += (out.empty() ? "" : ",") + it.key() + "." + f.key();
    } else {
      out += (out.empty() ? "" : ",") + it.key();
    }
  }
  return out;
}

class ParamCommand : public QUndoCommand {
 public:
  ParamCommand(ParamHistory* history, Params before, Params after, std::string fields)
      : history_(history), before_(std::move(before)), after_(std::move(after)), fields_(std::move(fields)) {
    setText(QString::fromStdString(fields_).replace(',', ", "));
    clock_.start();
  }
  int id() const override { return 1; }
  void undo() override { history_->applyFromHistory(before_); }
  void redo() override {
    if (first_) {
      first_ = false;  // the edit is already applied when it is recorded
      return;
    }
    history_->applyFromHistory(after_);
  }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const ParamCommand*>(other);
    if (o->fields_ != fields_ || clock_.elapsed() > 1000) return false;
    after_ = o->after_;
    clock_.restart();
    return true;
  }

 private:
  ParamHistory* history_;
  Params before_, after_;
  std::string fields_;
  QElapsedTimer clock_;
  bool first_ = true;
};

ParamHistory::ParamHistory(std::function<void(const Params&)> apply, QObject* parent)
    : QObject(parent), apply_(std::move(apply)), stack_(new QUndoStack(this)) {
  stack_->setUndoLimit(200);
}

void ParamHistory::record(const Params& before, const Params& after) {
  if (applying_) return;
  const std::string fields = changedFields(before, after);
  if (fields.empty()) return;
  stack_->push(new ParamCommand(this, before, after, fields));
}

void ParamHistory::applyFromHistory(const Params& p) {
  applying_ = true;
  apply_(p);
  applying_ = false;
}

}  // namespace attnlab::ui
