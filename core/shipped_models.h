#pragma once
// Models that ship with the program, named in Params::modelDir as "builtin:NAME" so sessions and the
// command line (`--model builtin:induction`) name them the same way on every machine.
//   builtin:induction  the 2-layer attention-only induction model trained by scripts/train-default-model
//                      (resources/models/induction): a previous-token head in layer 0 and an induction
//                      head in layer 1 on typed text such as "the cat sat on the mat . the cat sat on the mat"
#include <string>

namespace attnlab {

inline constexpr char kShippedModelPrefix[] = "builtin:";
inline constexpr char kShippedInductionModel[] = "builtin:induction";

/// True for "builtin:…" names.
bool isShippedModelName(const std::string& modelDir);
/// The folder holding a shipped model; throws InputError naming the model when it is unknown or its
/// files are missing from this installation.
std::string shippedModelFolder(const std::string& modelDir);

}  // namespace attnlab
