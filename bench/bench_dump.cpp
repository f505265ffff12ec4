// A long dump's size, time and peak memory (issue 31): `attnlab dump` of 1,024 tokens of a GPT-2-small-shaped
// checkpoint (random weights, bench/gpt2_checkpoint.h), each run as a child process, its peak resident memory read
// from wait4's rusage (ru_maxrss, the child's own VmHWM):
//   baseline   dump --only 5.3 --no-qkv                (every stream kept; the JSON written as it is made)
//   target     dump --only 5.3 --no-qkv --no-streams   (≤ 50 MB, peak ≤ 1.5 GB)
//   tree       the same baseline document built whole as a nlohmann::json tree and dumped, as `dump` did before
//              (in a forked child of this program, with the same core calls)
//   --old PATH the baseline command run by another attnlab binary (e.g. one built from an older commit)
//   bench_dump [--dir DIR] [--attnlab PATH] [--old PATH] [--out-dir DIR] [--no-tree]
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench/gpt2_checkpoint.h"
#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "core/model/trace_json.h"
#include "core/run/model_factory.h"
#include "core/run/pipeline.h"
#include "core/session/params_json.h"

using namespace attnlab;

namespace {

constexpr int kTokens = 1024;

struct Measured {
  double seconds = 0;
  double peakMb = 0;
  double bytes = 0;
  int status = -1;
};

double fileBytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0;
}

/// Waits for `pid`; its own peak resident memory from wait4 (ru_maxrss is in KiB on Linux).
Measured waitFor(pid_t pid, std::chrono::steady_clock::time_point start) {
  Measured m;
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.peakMb = static_cast<double>(usage.ru_maxrss) * 1024.0 / 1e6;
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return m;
}

Measured runProgram(const std::vector<std::string>& argv) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::perror("bench_dump: exec");
    ::_exit(127);
  }
  return waitFor(pid, start);
}

/// Today's baseline document built whole in memory, as `attnlab dump` did before it streamed: a nlohmann::json tree,
/// then its text, then the file.
Measured runTree(const Params& p, const std::string& out) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      const PipelineResult r = runPipeline(p);
      TraceJsonOptions o;
      o.allMaps = false;
      o.mapsOf = {{5, 3}};
      o.qkv = false;
      nlohmann::json j = traceToJson(r.trace, describeModel(p, *r.model), o);
      j["params"] = toJson(p);
      writeFileAtomically(out, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_dump: %s\n", e.what());
      ::_exit(1);
    }
    ::_exit(0);
  }
  return waitFor(pid, start);
}

/// A text of more than 1,024 tokens (the dump keeps the last 1,024: --keep-last).
std::string longText() {
  std::string text;
  for (int i = 0; i < 400; ++i)
    text += "The quick brown fox jumps over the lazy dog while the cat watches number " + std::to_string(i) + ". ";
  return text;
}

/// The token count and the 5.3 map's rows of a written dump (read back: the run dumped what was asked).
std::pair<std::size_t, std::size_t> checkDump(const std::string& path) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  return {j["tokens"].size(), j["layers"][5]["heads"][3]["attention"].size()};
}

void report(const char* what, const Measured& m, const char* target) {
  std::printf("%-46s %9.1f MB  %7.1f s  peak %7.0f MB  %s%s\n", what, m.bytes / 1e6, m.seconds, m.peakMb, target,
              m.status == 0 ? "" : "  (FAILED)");
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--dir", "/tmp/attnlab-bench-gpt2-small"},
                                            {"--attnlab", ATTNLAB_APP_BINARY},
                                            {"--out-dir", "/tmp/attnlab-bench-dump"},
                                            {"--old", ""}};
  bool tree = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-tree")
      tree = false;
    else if (i + 1 < argc)
      opt[a] = argv[++i];
  }
  try {
    const std::string dir = opt["--dir"], outDir = opt["--out-dir"];
    if (!fileExists(dir + "/model.safetensors")) {
      std::cerr << "writing a random GPT-2-small checkpoint to " << dir << " …\n";
      bench::writeCheckpoint(dir);
    }
    ::mkdir(outDir.c_str(), 0755);
    const std::string textFile = outDir + "/text.txt";
    writeFileAtomically(textFile, longText());
    const std::vector<std::string> common = {
        "dump",   "--model", dir,       "--sentence-file", textFile, "--keep-last", std::to_string(kTokens),
        "--only", "5.3",     "--no-qkv"};
    const auto dump = [&](const std::string& binary, const std::string& out, bool noStreams) {
      std::vector<std::string> argv = {binary};
      argv.insert(argv.end(), common.begin(), common.end());
      if (noStreams) argv.push_back("--no-streams");
      argv.insert(argv.end(), {"--out", out});
      Measured m = runProgram(argv);
      m.bytes = fileBytes(out);
      return m;
    };
    std::printf("attnlab dump of %d GPT-2-small tokens (random weights), --only 5.3 --no-qkv:\n", kTokens);
    const std::string small = outDir + "/no-streams.json", full = outDir + "/streams.json";
    const Measured target = dump(opt["--attnlab"], small, true);
    const auto [tokens, rows] = checkDump(small);
    report("--no-streams (target)", target, "target <= 50 MB, peak <= 1500 MB");
    std::printf("%-46s %zu tokens, the 5.3 map %zu rows\n", "  read back:", tokens, rows);
    report("baseline: every stream (streamed JSON)", dump(opt["--attnlab"], full, false), "");
    if (tree) {
      Params p;
      p.modelDir = dir;
      p.sentence = longText();
      p.keepLastTokens = kTokens;
      const std::string treeOut = outDir + "/tree.json";
      Measured m = runTree(p, treeOut);
      m.bytes = fileBytes(treeOut);
      report("baseline built whole as a JSON tree (before)", m, "");
      ::unlink(treeOut.c_str());
    }
    if (!opt["--old"].empty()) {
      const std::string oldOut = outDir + "/old.json";
      report("baseline by --old binary", dump(opt["--old"], oldOut, false), "");
      ::unlink(oldOut.c_str());
    }
    ::unlink(full.c_str());
  } catch (const std::exception& e) {
    std::cerr << "bench_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
