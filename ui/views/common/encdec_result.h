#pragma once
// An encoder–decoder's result as the single-text views see it (issue 33): the window hands every view the stack the
// parameters choose (selection.stack): the encoder's side (source tokens, encoder Trace) or the decoder's (target
// tokens with the start token, decoder Trace). Results of other models pass unchanged.
#include <QString>

#include "core/run/encdec_run.h"
#include "ui/views/common/compute_result.h"

namespace attnlab::ui {

/// `r` with its run replaced by the chosen stack's side; `r` itself for other models, failed runs and the decoder.
ResultPtr shownStack(const ResultPtr& r);
/// The encoder–decoder run behind `r`, either side (null for other models and failed runs).
const EncDecRun* encDecRunOf(const ComputeResult& r);
/// " · encoder" / " · decoder" for an encoder–decoder's side, "" otherwise: views append it to
/// their titles so that a figure says which stack it shows.
QString stackTag(const ComputeResult& r);
/// Which list of PredictionSettings a head toggled in a view of `r` belongs to (ablatedHeads): "encoder" on an
/// encoder–decoder's encoder side, "decoder" on its decoder side, "" for other models.
std::string ablationStack(const ComputeResult& r);

}  // namespace attnlab::ui
