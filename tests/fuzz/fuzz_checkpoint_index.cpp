// libFuzzer target: a sharded checkpoint's model.safetensors.index.json and the decoder families'
// config.json. Each input is written as the index of a folder that holds the two real shards of
// tests/reference/decoders/llama3-scaled, then opened; and read as a config.json with its model_type
// forced to one of the decoder families (chosen by the input's length), so the fuzzer reaches every
// family's fields. Any input must load or throw InputError; anything else is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/checkpoint/hf_config.h"
#include "core/checkpoint/safetensors_set.h"

namespace {

const std::string& folder() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/attnlab-fuzz-index-XXXXXX";
    const std::string d = mkdtemp(tmpl);
    const std::string src = std::string(ATTNLAB_FIXTURES) + "/../reference/decoders/llama3-scaled/";
    for (const char* shard : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
      std::ifstream in(src + shard, std::ios::binary);
      std::ofstream out(d + "/" + shard, std::ios::binary);
      out << in.rdbuf();
    }
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string index = folder() + "/model.safetensors.index.json";
  {
    std::ofstream out(index, std::ios::binary | std::ios::trunc);
    out << text;
  }
  try {
    const auto set = SafetensorsSet::fromIndex(index);
    (void)set->storedBytes();
  } catch (const InputError&) {
  }
  static const char* kTypes[] = {"llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3", "gemma3_text"};
  try {
    nlohmann::json j = parseJson(text, "config.json");
    if (j.is_object()) j["model_type"] = kTypes[size % 8];
    parseHfConfig(j, "config.json");
  } catch (const InputError&) {
  }
  return 0;
}
