#pragma once
// What `attnlab predict`, `attribute` and `patch` share: token arguments, JSON for tokens and matrices.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli_args.h"
#include "core/model/model.h"
#include "core/predict/prediction.h"

namespace attnlab::cli {

/// The parameters of a subcommand whose --position is a token index, not the positional-encoding kind of
/// the built-in model (which has no vocabulary to predict with anyway).
Params paramsWithoutPosition(const Args& args);
/// --position I, checked against the traced text; without it the model's default (core/predict/prediction.h
/// defaultPosition: a masked LM's first [MASK], else the last token).
int positionArg(const Args& args, const Model& model, const Trace& trace);
/// {"id", "token"} of a vocabulary id.
nlohmann::json tokenJson(const Model& model, int id);
/// [{"id", "token", "logit", "prob"}…]; without logits when `withLogit` is false (the logit lens).
nlohmann::json scoresJson(const std::vector<TokenScore>& scores, bool withLogit = true);
/// Rows of a matrix as nested arrays (NaN as null).
nlohmann::json matrixJson(const MatD& m);

}  // namespace attnlab::cli
