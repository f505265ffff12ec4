#include "ui/shell/param_history.h"

#include <QCoreApplication>
#include <QStringList>
#include <QUndoCommand>
#include <map>

#include "core/session/params_json.h"

namespace attnlab::ui {
namespace {

using nlohmann::json;

QString tr(const char* s) { return QCoreApplication::translate("ParamHistory", s); }

/// The panel's (or the view's) name of a field of changedFields; "" for the sentence.
QString fieldName(const std::string& field) {
  static const std::map<std::string, const char*> names = {{"sentence", ""},
                                                           {"lowercase", "lower-case"},
                                                           {"model_dir", "model"},
                                                           {"model.d_model", "d_model"},
                                                           {"model.heads", "heads"},
                                                           {"model.layers", "layers"},
                                                           {"model.seed", "seed"},
                                                           {"model.mode", "mode"},
                                                           {"model.position", "position"},
                                                           {"model.scale", "scaling"},
                                                           {"model.causal", "causal mask"},
                                                           {"model.skip", "residual connections"},
                                                           {"model.mlp", "MLP"},
                                                           {"model.norm", "LayerNorm"},
                                                           {"model.activation", "activation"},
                                                           {"model.max_tokens", "longest input"},
                                                           {"selection.layer", "layer"},
                                                           {"selection.head", "head"},
                                                           {"selection.view", "view"},
                                                           {"selection.pinned", "pinned tokens"},
                                                           {"spectra.rank_demo", "rank demo settings"},
                                                           {"spectra.feature_maps", "feature-map settings"},
                                                           {"spectra.head_size", "head-size settings"},
                                                           {"display.colormap", "colour map"},
                                                           {"display.theme", "theme"}};
  const auto it = names.find(field);
  if (it != names.end()) return it->first == "sentence" ? QString() : tr(it->second);
  // collapse.inspect_depth → "collapse inspect depth", variants.top_k → "variants top k"
  return QString::fromStdString(field).replace('.', ' ').replace('_', ' ');
}

/// A value as the panel shows it: the mode's rung, on/off, a model folder's name.
QString valueText(const std::string& field, const json& v) {
  static const std::map<std::string, const char*> modes = {
      {"basic", "basic"},           {"qkv", "queries, keys, values"}, {"scaled", "scaled"},
      {"multihead", "multi-head"},  {"causal", "causal mask"},        {"block", "full block"},
      {"encdec", "encoder–decoder"}};
  if (v.is_boolean()) return v.get<bool>() ? tr("on") : tr("off");
  if (!v.is_string()) return QString::fromStdString(v.dump());
  const std::string s = v.get<std::string>();
  if (field == "model.mode" && modes.count(s)) return tr(modes.at(s));
  if (field == "model_dir") {
    if (s.empty()) return tr("built-in");
    const auto slash = s.find_last_of('/', s.size() > 1 ? s.size() - 2 : 0);
    return QString::fromStdString(slash == std::string::npos ? s : s.substr(slash + 1));
  }
  return QString::fromStdString(s);
}

const json* at(const json& j, const std::string& field) {
  const json* node = &j;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = field.find('.', start);
    const auto it = node->find(field.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (it == node->end()) return nullptr;
    node = &*it;
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
}

/// Leaves of `edited` that differ from `base` are written into `onto`; objects are walked.
void rebase(const json& base, const json& edited, json& onto) {
  for (auto it = edited.begin(); it != edited.end(); ++it) {
    const auto b = base.find(it.key());
    if (b != base.end() && *b == it.value()) continue;
    if (it->is_object() && b != base.end() && b->is_object() && onto.contains(it.key()) && onto[it.key()].is_object())
      rebase(*b, *it, onto[it.key()]);
    else
      onto[it.key()] = it.value();
  }
}

}  // namespace

std::string changedFields(const Params& a, const Params& b) {
  const json ja = toJson(a), jb = toJson(b);
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

QString describeChange(const Params& a, const Params& b) {
  const QStringList fields = QString::fromStdString(changedFields(a, b)).split(',', Qt::SkipEmptyParts);
  if (fields.isEmpty()) return {};
  if (fields.size() == 1) {
    const std::string field = fields.front().toStdString();
    if (field == "sentence") return tr("typing");
    const QString name = fieldName(field);
    const json ja = toJson(a), jb = toJson(b);
    const json *va = at(ja, field), *vb = at(jb, field);
    if (!vb || vb->is_object() || vb->is_array() || vb->is_null()) return name;
    if (vb->is_boolean()) return name + ' ' + valueText(field, *vb);
    if (vb->is_number() && va && va->is_number())
      return QStringLiteral("%1 %2 → %3").arg(name, valueText(field, *va), valueText(field, *vb));
    return QStringLiteral("%1: %2").arg(name, valueText(field, *vb));
  }
  QStringList names;
  for (const QString& f : fields) {
    const QString n = f == "sentence" ? tr("sentence") : fieldName(f.toStdString());
    if (!names.contains(n)) names << n;
  }
  if (names.size() == 1) return names.front();
  const QString last = names.takeLast();
  return tr("%1 and %2").arg(names.join(QStringLiteral(", ")), last);
}

Params rebaseEdit(const Params& base, const Params& edited, const Params& onto) {
  json j = toJson(onto);
  rebase(toJson(base), toJson(edited), j);
  return paramsFromJson(j, onto);
}

class ParamCommand : public QUndoCommand {
 public:
  ParamCommand(ParamHistory* history, Params before, Params after, std::string fields)
      : history_(history), before_(std::move(before)), after_(std::move(after)), fields_(std::move(fields)) {
    setText(describeChange(before_, after_));
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
    // Pins are single clicks, each one a step to undo; slider drags merge into one.
    if (o->fields_ != fields_ || fields_ == "selection.pinned" || clock_.elapsed() > 1000) return false;
    after_ = o->after_;
    setText(describeChange(before_, after_));  // "head 2 → 4" after a drag 2 → 3 → 4
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
