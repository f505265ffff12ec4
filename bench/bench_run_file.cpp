// The run file that attnlab.show / attnlab.figure hand to the program (issue 34, core/model/run_file.h): its size and
// the time to write and read it, against the forward pass that made the run (what the window would otherwise do) and
// against the JSON dump of the same trace (`attnlab.trace/1`, written by writeTraceJson, read by nlohmann::json::parse)
// — at 256 tokens of a GPT-2-small-shaped checkpoint (random weights, bench/gpt2_checkpoint.h; every map kept) and at
// 1,024 (tiled: no maps, summaries and thumbnails). Medians of 3 runs.
//   bench_run_file [--dir DIR] [--out-dir DIR] [--json 0]   (--json 0: no JSON rows; they take minutes at 1,024 tokens)
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "bench/bench_util.h"
#include "bench/gpt2_checkpoint.h"
#include "core/base/json_stream.h"
#include "core/model/run_file.h"
#include "core/model/trace_json.h"
#include "core/run/model_factory.h"
#include "core/run/pipeline.h"

using namespace attnlab;

namespace {

std::string text() {
  std::string t;
  for (int i = 0; i < 400; ++i)
    t += "The quick brown fox jumps over the lazy dog while the cat watches number " + std::to_string(i) + ". ";
  return t;
}

double fileMb(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) / 1e6 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {
      {"--dir", "/tmp/attnlab-bench-gpt2-small"}, {"--out-dir", "/tmp/attnlab-bench-run-file"}, {"--json", "1"}};
  for (int i = 1; i + 1 < argc; i += 2) opt[argv[i]] = argv[i + 1];
  try {
    const std::string dir = opt["--dir"], out = opt["--out-dir"];
    if (!std::ifstream(dir + "/model.safetensors")) {
      std::cerr << "writing a random GPT-2-small checkpoint to " << dir << " …\n";
      bench::writeCheckpoint(dir);
    }
    ::mkdir(out.c_str(), 0755);
    Params p;
    p.modelDir = dir;
    p.sentence = text();
    const auto model = makeModel(p);
    std::printf("%-34s %9s %11s %9s\n", "", "MB", "median ms", "× forward");
    for (const int tokens : {256, 1024}) {
      p.keepLastTokens = tokens;
      PipelineResult r;
      const double forward = bench::medianOfRuns(3, [&] { r = runPipeline(p, model); });
      const std::string runPath = out + "/run.attnlab-run", jsonPath = out + "/trace.json";
      const RunFileModel info{model->info(), dir, nlohmann::json(), model->vocabularySize()};
      const double write = bench::medianOfRuns(3, [&] { writeRunFile(runPath, r.trace, info); });
      const double read = bench::medianOfRuns(3, [&] { readRunFile(runPath); });
      const bool json = opt["--json"] != "0";
      const double writeJson = !json ? 0 : bench::medianOfRuns(1, [&] {
        std::ofstream f(jsonPath);
        JsonStreamWriter w([&f](std::string_view s) { f.write(s.data(), static_cast<std::streamsize>(s.size())); });
        writeTraceJson(w, r.trace, nlohmann::json::object());
        w.finish();
      });
      const double readJson = !json ? 0 : bench::medianOfRuns(1, [&] {
        std::ifstream f(jsonPath);
        const nlohmann::json j = nlohmann::json::parse(f);
      });
      const auto row = [&](const std::string& what, double mb, double ms) {
        std::printf("%-34s %9.1f %11.1f %9.2f\n", what.c_str(), mb, ms, ms / forward);
      };
      const std::string n = std::to_string(r.trace.tokenCount()) + " tokens: ";
      std::printf("\n%s%s\n", n.c_str(), r.trace.layers[0].heads[0].keepsMaps() ? "maps kept" : "tiled, no maps");
      row(n + "forward (baseline)", 0, forward);
      row(n + "run file write", fileMb(runPath), write);
      row(n + "run file read", fileMb(runPath), read);
      if (!json) continue;
      row(n + "JSON dump write", fileMb(jsonPath), writeJson);
      row(n + "JSON dump parse", fileMb(jsonPath), readJson);
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_run_file: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
