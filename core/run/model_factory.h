#pragma once
#include <memory>

#include <nlohmann/json.hpp>

#include "core/model/model.h"
#include "core/session/params.h"

namespace attnlab {

/// The model the parameters name: the built-in transformer when model_dir is empty. Throws
/// InputError with a message naming the problem (invalid config, unreadable checkpoint).
/// `control` is checked while weights are built or loaded (cancel, progress).
std::shared_ptr<const Model> makeModel(const Params& p, const RunControl& control = {});

/// The "config" object written into a dump for this model.
nlohmann::json describeModel(const Params& p, const Model& m);

}  // namespace attnlab
