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

void checkActivationMemory(long long tokens, long long layers, long long dModel, long long headColumns) {
  const double bytes = static_cast<double>(tokens) * layers * (5.0 * dModel + 4.0 * headColumns) * sizeof(float);
  if (bytes <= kActivationBudgetBytes) return;
  char gb[64];
  std::snprintf(gb, sizeof gb, "%.1f GB (the limit is %.0f GB)", bytes / (1024.0 * 1024 * 1024),
                kActivationBudgetBytes / (1024.0 * 1024 * 1024));
  throw InputError("the activations of " + std::to_string(tokens) + " tokens × " + std::to_string(layers) +
                   " layers would take " + gb + ": use fewer tokens (the last part of the text, for instance)");
}

bool planMapKeeping(MapKeeping policy, long long tokens, long long layers, long long heads) {
  const double bytes = 2.0 * layers * heads * static_cast<double>(tokens) * tokens * sizeof(float);
  const bool keep = policy == MapKeeping::Always || (policy == MapKeeping::Auto && bytes <= kAutoKeptMapBytes);
  if (keep) checkTraceMemory(tokens, layers, heads);
  return keep;
}

}  // namespace attnlab
