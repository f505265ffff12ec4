#pragma once
// What the Heads views say about the atlas's numbers: a score's name with its unit for an axis, the choices of the
// scatter's combo boxes, a head's value of a choice, its hover text and its probe-attention thumbnail.
#include <QImage>
#include <QString>
#include <QStringList>

#include "core/atlas/head_atlas.h"
#include "ui/views/common/head_names.h"

namespace attnlab::ui {

/// "layer", "head", then the atlas's metrics in its order (the probe's scores first where present).
QStringList atlasChoices(const HeadAtlas& atlas);
/// An axis title: "induction score (mean attention, 0–1)", "entropy (nats)", "layer (index)".
QString choiceTitle(const QString& choice);
/// The head's value of `choice` (NaN when the atlas lacks it).
double choiceValue(const HeadAtlas& atlas, const QString& choice, int layer, int head);
/// Hover text: the head, then every score of it, one per line.
QString headSummary(const HeadAtlas& atlas, int layer, int head);
/// The head's attention on the probe as a small image (one pixel per weight, the sequential colour map, scaled to
/// `size` pixels, nearest); null without a probe trace.
QImage probeThumbnail(const HeadAtlas& atlas, int layer, int head, int size);
/// "probe: 129 tokens (BOS + 2 × 64), seed 0; corpus: 20 000 tokens", for captions.
QString probeCaption(const HeadAtlas& atlas);

}  // namespace attnlab::ui
