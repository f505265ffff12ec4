#include "core/atlas/head_atlas.h"

namespace attnlab {

std::string headKey(int layer, int head) { return std::to_string(layer) + "." + std::to_string(head); }
std::string headName(int layer, int head) { return "L" + std::to_string(layer) + "H" + std::to_string(head); }

}  // namespace attnlab
