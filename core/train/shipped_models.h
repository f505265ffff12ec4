#pragma once
// Models that ship with the program, named in Params::modelDir as "builtin:NAME" so sessions and the
// command line (`--model builtin:induction`) name them the same way on every machine.
//   builtin:induction  the 2-layer attention-only induction model trained by scripts/train-default-model
//                      (resources/models/induction): a previous-token head in layer 0 and an induction
//                      head in layer 1 on typed text such as "the cat sat on the mat . the cat sat on the mat"
// Their files are compiled into the program (core/CMakeLists.txt, cmake/embed_files.cmake): a binary
// copied anywhere opens them without the source tree.
#include <memory>
#include <string>

#include "core/train/tiny_model.h"

namespace attnlab {

inline constexpr char kShippedModelPrefix[] = "builtin:";
inline constexpr char kShippedInductionModel[] = "builtin:induction";

/// True for "builtin:…" names.
bool isShippedModelName(const std::string& modelDir);
/// Loads a shipped model from the bytes compiled into the program; throws InputError naming the model
/// when it is unknown.
std::shared_ptr<const TinyModel> loadShippedModel(const std::string& modelDir);

}  // namespace attnlab
