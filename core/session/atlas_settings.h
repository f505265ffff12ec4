#pragma once
// The Heads chapter's choices (issue 17), stored with the parameters so a session re-creates them:
// params JSON "atlas": {"probe_length": 64, "probe_seed": 0, "corpus": ["notes.txt", "texts/"], "window": 256,
//   "top": 10, "x": "previous_token", "y": "induction", "colour": "layer"}.
// x, y and colour name a score of the head atlas (head_atlas.h metrics) or "layer" / "head"; a name the atlas of
// the current model lacks (a corpus score before a scan) is shown as missing by the views, not refused here.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

struct AtlasSettings {
  int probeLength = 64;              ///< T of the probe [BOS] r₁…r_T r₁…r_T: 2–4096
  unsigned long long probeSeed = 0;  ///< the probe's random tokens
  std::vector<std::string> corpus;   ///< text files or folders scanned for the heads' strongest contexts
  int window = 256;                  ///< tokens per forward pass of the corpus scan: 8–65536
  int top = 10;                      ///< strongest contexts kept per head and kind: 1–1000
  std::string x = "previous_token";  ///< the scatter's axes and colour: a metric name, "layer" or "head"
  std::string y = "induction";
  std::string colour = "layer";
};

nlohmann::json toJson(const AtlasSettings& s);
/// Reads the "atlas" object over `out`; absent fields keep their values. Throws InputError naming the field
/// ("params: atlas.probe_length must be 2–4096").
void readAtlasSettings(const nlohmann::json& j, AtlasSettings& out);
/// Throws InputError naming the first field out of range.
void validate(const AtlasSettings& s);

}  // namespace attnlab
