#include "core/shipped_models.h"

#include <sys/stat.h>

#include "core/errors.h"

#ifndef ATTNLAB_RESOURCE_DIR
#error "ATTNLAB_RESOURCE_DIR must name the resources folder (set by core/CMakeLists.txt)"
#endif

namespace attnlab {

bool isShippedModelName(const std::string& modelDir) { return modelDir.rfind(kShippedModelPrefix, 0) == 0; }

std::string shippedModelFolder(const std::string& modelDir) {
  const std::string name = modelDir.substr(std::string(kShippedModelPrefix).size());
  if (name != "induction") throw InputError("unknown built-in model '" + modelDir + "' (known: builtin:induction)");
  const std::string dir = std::string(ATTNLAB_RESOURCE_DIR) + "/models/" + name;
  struct stat st {};
  if (::stat((dir + "/model.safetensors").c_str(), &st) != 0)
    throw InputError(modelDir + ": its files are missing from this installation (" + dir + ")");
  return dir;
}

}  // namespace attnlab
