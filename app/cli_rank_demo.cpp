// `attnlab rank-demo`: the "exp raises rank" example of seeds/000's comments as JSON.
#include <cstdio>

#include "app/cli_commands.h"
#include "app/cli_progress.h"
#include "core/spectra/exp_rank_demo.h"
#include "core/spectra/spectrum_json.h"

namespace attnlab::cli {

int runRankDemo(const Args& args) {
  RankDemoSettings s;
  s.n = args.intValue("n", s.n, 2, 4096);
  s.scale = args.doubleValue("scale", s.scale, -20.0, 20.0);
  s.seed = static_cast<uint64_t>(args.intValue("seed", 0, 0, 2147483647));
  s.sweepMin = args.doubleValue("sweep-min", s.sweepMin, 1e-6, 20.0);
  s.sweepMax = args.doubleValue("sweep-max", s.sweepMax, 1e-6, 20.0);
  s.sweepPoints = args.intValue("sweep-points", s.sweepPoints, 2, 400);
  // Two n × n spectra: instant at the default n = 100, tens of seconds at 4,096; say so before the wait.
  if (s.n >= 1024)
    std::fprintf(stderr, "attnlab rank-demo: the singular values of two %d × %d matrices take a while…\n", s.n, s.n);
  const RankDemoResult r = runRankDemo(s);  // validates the settings (InputError names the field)
  std::vector<RankSweepPoint> sweep;
  if (args.has("sweep")) {
    StderrProgress progress("attnlab rank-demo: sweep");  // minutes at n = 4,096
    sweep = rankSweep(s, progress.control());
  }
  const nlohmann::json j = rankDemoToJson(r, args.has("sweep") ? &sweep : nullptr);
  writeText(args.value("out"), jsonText(j, args.intValue("indent", -1, 0, 16)) + "\n");
  return 0;
}

}  // namespace attnlab::cli
