#include "core/checkpoint/safetensors_writer.h"

#include <cstring>

#include <nlohmann/json.hpp>

#include "core/base/atomic_file.h"
#include "core/base/errors.h"

namespace attnlab {

void writeSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const TensorToWrite& t : tensors) {
    std::int64_t count = 1;
    for (std::int64_t s : t.shape) count *= s;
    if (count != static_cast<std::int64_t>(t.data.size()))
      throw InputError(path + ": tensor " + t.name + " has " + std::to_string(t.data.size()) +
                       " values but its shape needs " + std::to_string(count));
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * sizeof(float);
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // keeps the data area 8-byte aligned, as the reference writer does
  std::string file;
  file.reserve(8 + json.size() + offset);
  const std::uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));  // little-endian length
  file += json;
  for (const TensorToWrite& t : tensors) {
    static_assert(sizeof(float) == 4, "F32");
    for (float v : t.data) {  // little-endian regardless of the host
      std::uint32_t u;
      std::memcpy(&u, &v, 4);
      for (int i = 0; i < 4; ++i) file.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
    }
  }
  writeFileAtomically(path, file);
}

}  // namespace attnlab
