// libFuzzer target: a session or params file (*.attnlab.json, `--params FILE`), as the window's File ▸ Open and
// every command's --params read it: sessionFromText (JSON, the session block's version, every field of Params
// with its type and range), then the parameters written back and read again, which must give the same JSON.
// Any input must load or throw InputError; anything else (a crash, another exception, a round trip that changes
// the parameters) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/base/errors.h"
#include "core/session/params_json.h"
#include "core/session/session.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Params p;
  try {
    p = sessionFromText(text, "fuzz.attnlab.json");
  } catch (const InputError&) {
    return 0;
  }
  const nlohmann::json saved = sessionToJson(p);
  const Params again = sessionFromJson(saved);  // what the program writes, it reads back unchanged
  if (sessionToJson(again) != saved) std::abort();
  return 0;
}
