#pragma once
// Writing F32 tensors in the safetensors format (layout in safetensors.h), for saving trained tiny models.
// The file is written beside its destination and renamed over it, so a failed save never leaves a
// half-written file where a good one was.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab {

struct TensorToWrite {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> data;  ///< row-major, as many elements as the shape says
};

/// Throws InputError naming the path when it cannot be written.
void writeSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace attnlab
