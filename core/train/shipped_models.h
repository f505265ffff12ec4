#pragma once
// Models that ship with the program, named in Params::modelDir as "builtin:NAME" so sessions and the
// command line (`--model builtin:induction`) name them the same way on every machine.
//   builtin:induction  the 2-layer attention-only induction model trained by scripts/train-default-model
//                      (resources/models/induction): a previous-token head in layer 0 and an induction
//                      head in layer 1 on typed text such as "the cat sat on the mat . the cat sat on the mat"
//   builtin:reverse    a 1+1-layer encoder–decoder (BART layout, tiny_encdec_export.h) trained by
//                      scripts/train-encdec-model on reversal (resources/models/reverse): its cross-attention is
//                      the anti-diagonal; "d c b a" → "a b c d"
// Their files are compiled into the program (core/CMakeLists.txt, cmake/embed_files.cmake): a binary
// copied anywhere opens them without the source tree.
#include <memory>
#include <string>

#include "core/train/tiny_model.h"

namespace attnlab {

inline constexpr char kShippedModelPrefix[] = "builtin:";
inline constexpr char kShippedInductionModel[] = "builtin:induction";
inline constexpr char kShippedReverseModel[] = "builtin:reverse";

/// True for "builtin:…" names.
bool isShippedModelName(const std::string& modelDir);
/// True for the built-in encoder–decoders (builtin:reverse), which open as folders (shippedEncDecFolder), not as a
/// TinyModel.
bool isShippedEncDecName(const std::string& modelDir);
/// The folder of a built-in encoder–decoder: its files (compiled into the program) written once under the temporary
/// directory, so EncDecModel::open and openEncDecFolder read it like any downloaded folder. Throws InputError for an
/// unknown name or a folder that cannot be written.
std::string shippedEncDecFolder(const std::string& modelDir);
/// Loads a shipped model from the bytes compiled into the program; throws InputError naming the model
/// when it is unknown.
std::shared_ptr<const TinyModel> loadShippedModel(const std::string& modelDir);

}  // namespace attnlab
