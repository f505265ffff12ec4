#include "ui/views/heads/atlas_labels.h"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/plots/colormaps.h"
#include "ui/plots/view_style.h"
#include "ui/views/common/head_names.h"

namespace attnlab::ui {
namespace {

/// The probe's scores in the order the issue lists them; any other metric follows in the atlas's order.
const QStringList kPreferred = {"previous_token", "induction",     "duplicate_token", "bos", "entropy", "mean_distance",
                                "copying",        "dla_magnitude", "ablation_effect"};

QString unitOf(const QString& name) {
  const QString base = name.startsWith("corpus_") ? name.mid(7) : name;
  if (base == "previous_token" || base == "induction" || base == "duplicate_token" || base == "bos")
    return QObject::tr("mean attention, 0–1");
  if (base == "entropy") return QObject::tr("nats");
  if (base == "mean_distance") return QObject::tr("tokens");
  if (base == "copying") return QObject::tr("Σλ / Σ|λ|, −1…1");
  if (base == "dla_magnitude") return QObject::tr("mean |logit|");
  if (base == "ablation_effect") return QObject::tr("mean |Δ loss|, nats");
  if (base == "layer" || base == "head") return QObject::tr("index");
  return {};
}

}  // namespace

QStringList atlasChoices(const HeadAtlas& atlas) {
  QStringList out = {"layer", "head"};
  for (const QString& name : kPreferred)
    if (atlas.metrics.count(name.toStdString())) out << name;
  for (const auto& [name, grid] : atlas.metrics)
    if (!out.contains(QString::fromStdString(name))) out << QString::fromStdString(name);
  return out;
}

QString choiceTitle(const QString& choice) {
  QString words = choice;
  words.replace('_', ' ');
  const bool score = choice != "layer" && choice != "head" && choice != "entropy" && choice != "mean_distance";
  const QString unit = unitOf(choice);
  const QString name = score ? QObject::tr("%1 score").arg(words) : words;
  return unit.isEmpty() ? name : QString("%1 (%2)").arg(name, unit);
}

double choiceValue(const HeadAtlas& atlas, const QString& choice, int layer, int head) {
  if (choice == "layer") return layer;
  if (choice == "head") return head;
  const auto it = atlas.metrics.find(choice.toStdString());
  if (it == atlas.metrics.end() || layer >= static_cast<int>(it->second.size()) ||
      head >= static_cast<int>(it->second[layer].size()))
    return std::numeric_limits<double>::quiet_NaN();
  return it->second[layer][head];
}

QString headSummary(const HeadAtlas& atlas, int layer, int head) {
  // A grouped-query model: the kv head it reads (the probe's trace knows the grouping).
  const QString kv = atlas.probeTrace ? kvSuffix(*atlas.probeTrace, head) : QString();
  QStringList lines = {
      QObject::tr("Head %1%4 (layer %2, head %3)").arg(headLabel(layer, head)).arg(layer).arg(head).arg(kv)};
  for (const QString& choice : atlasChoices(atlas)) {
    if (choice == "layer" || choice == "head") continue;
    const double v = choiceValue(atlas, choice, layer, head);
    lines << QString("%1: %2").arg(choice, std::isfinite(v) ? QString::number(v, 'f', 3) : QObject::tr("n/a"));
  }
  return lines.join('\n');
}

QImage probeThumbnail(const HeadAtlas& atlas, int layer, int head, int size) {
  if (!atlas.probeTrace || layer >= atlas.probeTrace->layerCount() || head >= atlas.probeTrace->headCount()) return {};
  const Mat& a = atlas.probeTrace->layers[layer].heads[head].attention;
  if (a.rows() == 0) return {};
  const ColorMap map = ViewStyle::instance().resolve(ColorMap::Viridis);
  const float top = std::max(a.maxCoeff(), 1e-6f);
  QImage image(static_cast<int>(a.cols()), static_cast<int>(a.rows()), QImage::Format_RGB32);
  for (int i = 0; i < a.rows(); ++i)
    for (int j = 0; j < a.cols(); ++j) image.setPixel(j, i, colorAt(map, a(i, j) / top));
  return image.scaled(size, size, Qt::IgnoreAspectRatio, Qt::FastTransformation);
}

QString probeCaption(const HeadAtlas& atlas) {
  const AtlasProbe& p = atlas.probe;
  // A model without a vocabulary (the built-in one) has no ids: count the positions the probe has instead.
  const std::size_t length = !p.ids.empty()      ? p.ids.size()
                             : !p.tokens.empty() ? p.tokens.size()
                                                 : static_cast<std::size_t>(p.scoredRows() + p.suffix);
  QString text = QObject::tr("probe: %1 tokens (%2 × %3 random tokens%4), seed %5")
                     .arg(length)
                     .arg(2)
                     .arg(p.repeat)
                     .arg(p.offset > 0 ? QObject::tr(" after BOS") : QString())
                     .arg(p.seed);
  if (atlas.corpusTokens > 0) text += QObject::tr("; corpus: %1 tokens").arg(atlas.corpusTokens);
  return text;
}

}  // namespace attnlab::ui
