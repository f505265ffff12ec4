#pragma once
// An encoder–decoder's result as the single-text views see it (issue 33): the window hands every view the stack the
// parameters choose (selection.stack): the encoder's side (source tokens, encoder Trace) or the decoder's (target
// tokens with the start token, decoder Trace). "cross" hands over the decoder's side too: the views that can draw
// cross-attention (target rows × source columns) read it through crossMap/crossSources/crossTargets, the others show
// the decoder and say so (crossAbsentNote). Results of other models pass unchanged.
#include <QString>
#include <QStringList>

#include "core/run/encdec_run.h"
#include "ui/views/common/compute_result.h"

namespace attnlab::ui {

/// `r` with its run replaced by the chosen stack's side; `r` itself for other models, failed runs, the decoder and
/// the cross stack (whose queries are the decoder's tokens).
ResultPtr shownStack(const ResultPtr& r);
/// The encoder–decoder run behind `r`, either side (null for other models and failed runs).
const EncDecRun* encDecRunOf(const ComputeResult& r);
/// " · encoder" / " · decoder" / " · cross" for an encoder–decoder's side, "" otherwise: views append it to
/// their titles so that a figure says which stack it shows.
QString stackTag(const ComputeResult& r);
/// Which list of PredictionSettings a head toggled in a view of `r` belongs to (ablatedHeads): "encoder" on an
/// encoder–decoder's encoder side, "decoder" on its decoder side, "" for other models.
std::string ablationStack(const ComputeResult& r);

/// True when `r` is an encoder–decoder's run with the cross stack chosen (selection.stack "cross").
bool showsCross(const ComputeResult& r);
/// The decoder layers' cross-attention behind such a result (null otherwise): heads' attention [n_tgt, n_src],
/// q [n_tgt, d_head], k and v [n_src, d_head].
const std::vector<CrossLayerTrace>* crossLayersOf(const ComputeResult& r);
/// Cross head (l, h) of the selected or given layer/head, clamped into the decoder's range (null without cross).
const HeadTrace* crossHead(const ComputeResult& r, int l, int h);
/// The source's tokens (the encoder's; the cross map's columns) and the target's (the decoder's input, start token
/// first; its rows) as a reader sees them ("▁the" → "·the"). Empty for other models.
QStringList crossSources(const ComputeResult& r);
QStringList crossTargets(const ComputeResult& r);
/// What the window's status line says when "cross" is chosen: the views that draw cross-attention, and that the views
/// of one stack show the decoder. Empty unless showsCross(r).
QString crossAbsentNote(const ComputeResult& r);

}  // namespace attnlab::ui
