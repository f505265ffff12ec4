#pragma once
// The numbers behind the Heads views (export as CSV / JSON / NPY): every score as a [layers, heads] matrix, the
// probe's ids with its tokens as labels (so each score can be recomputed by hand), the similarity in cluster order
// with the 2-D map, and a head's strongest contexts.
#include "core/atlas/head_atlas.h"
#include "core/session/view_numbers.h"

namespace attnlab::ui {

/// "score_<name>" [layers, heads] for every metric, then "probe_ids" [1, probe length] labelled by the tokens.
void appendAtlasScores(ViewNumbers& n, const HeadAtlas& atlas);
/// "similarity" [L·H, L·H] in clusterOrder, "L0H10" labels; "map2d" [L·H, 2] (layer-major, "L0H10" rows).
void appendSimilarity(ViewNumbers& n, const HeadAtlas& atlas);
/// For each of the head's contexts: "context_<kind>_<rank>" [1, tokens] of its attention row, the snippet's tokens
/// as column labels and "score=…, query=…, key=…, source=…:index" as the row label.
void appendContexts(ViewNumbers& n, const HeadAtlas& atlas, int layer, int head);
/// The similarity matrix reordered by the atlas's clusterOrder (identity when it has none).
MatD clusteredSimilarity(const HeadAtlas& atlas, std::vector<int>* order = nullptr);

}  // namespace attnlab::ui
