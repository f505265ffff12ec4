// libFuzzer target: the safetensors header parser and the dtype conversion behind it. Any input must
// either parse or throw InputError; anything else (crash, sanitizer report, other exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/hf_config.h"
#include "core/checkpoint/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  try {
    const SafetensorsHeader h = parseSafetensorsHeader(data, size, "fuzz.safetensors");
    std::vector<float> out;
    for (const TensorInfo& t : h.tensors) {
      if (t.dtype == DType::F8E4M3 || t.dtype == DType::F8E5M2) continue;
      // Offsets were validated against the input: converting must stay inside it.
      out.resize(static_cast<std::size_t>(t.elementCount()));
      convertToFloat(t.dtype, data + h.dataOffset + t.begin, t.elementCount(), out.data());
    }
  } catch (const InputError&) {
  }
  // The same bytes as a config.json: JSON parsing with the depth guard, then field validation.
  try {
    parseHfConfig(parseJson(std::string_view(reinterpret_cast<const char*>(data), size), "config.json"), "config.json");
  } catch (const InputError&) {
  }
  return 0;
}
