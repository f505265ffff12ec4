#include "core/model/trace.h"

#include <cstdio>
#include <string>

#include "core/base/errors.h"

namespace attnlab {

void checkTraceMemory(long long tokens, long long layers, long long heads) {
  constexpr double kBudgetBytes = 2.0 * 1024 * 1024 * 1024;
  const double bytes = 2.0 * layers * heads * static_cast<double>(tokens) * tokens * sizeof(float);
  if (bytes <= kBudgetBytes) return;
  char gb[32];
  std::snprintf(gb, sizeof gb, "%.1f", bytes / (1024.0 * 1024 * 1024));
  throw InputError("keeping every attention map of " + std::to_string(tokens) + " tokens × " + std::to_string(layers) +
                   " layers × " + std::to_string(heads) + " heads would take " + gb +
                   " GB (the limit is 2 GB): use fewer tokens, layers or heads");
}

}  // namespace attnlab
