#include "core/model/trace.h"

#include <unistd.h>

#include <algorithm>
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

const Mat& HeadTrace::emptyMat() {
  static const Mat empty;
  return empty;
}

double activationFloatsPerToken(long long dModel, long long queryColumns, long long kvColumns, bool keepsOutputs) {
  // q and concat [n, H·d_head]; K and V [n, H_kv·d_head]; the output [n, d], with the two block outputs 3·d.
  return 2.0 * queryColumns + 2.0 * kvColumns + (keepsOutputs ? 3.0 : 1.0) * dModel;
}

double activationBudgetBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  const double physical = pages > 0 && pageSize > 0 ? static_cast<double>(pages) * pageSize : 0.0;
  return std::max(kMinActivationBudgetBytes, physical / 2);
}

void checkActivationMemory(long long tokens, long long layers, double floatsPerToken) {
  const double bytes = static_cast<double>(tokens) * layers * floatsPerToken * sizeof(float);
  const double budget = activationBudgetBytes();
  if (bytes <= budget) return;
  char gb[80];
  std::snprintf(gb, sizeof gb, "%.1f GB (the limit is %.1f GB, half of this computer's memory)",
                bytes / (1024.0 * 1024 * 1024), budget / (1024.0 * 1024 * 1024));
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
