// Times the tokenizer.json engine (core/text/hf_tokenizer.h) on 100 KB of English prose for the real
// Llama-3.1, Qwen3, Mixtral and Gemma-3 files of the shared fixtures (the target: well under a
// second for Llama-3), plus the time to load each file. Wall-clock medians of several runs.
//   bench_tokenizer [fixtures_dir]   (default: ../shared/fixtures/hf-tokenizers next to the source tree)
#include <QByteArray>
#include <QProcess>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "bench/bench_util.h"
#include "core/base/json_file.h"
#include "core/text/hf_tokenizer.h"

using namespace attnlab;

namespace {

/// dir/name, gunzipped by the system's gzip when only dir/name.gz exists.
nlohmann::json readMaybeGzipped(const std::string& path) {
  if (fileExists(path)) return readJsonFile(path);
  if (!fileExists(path + ".gz")) return nlohmann::json::object();
  QProcess gz;
  gz.start("gzip", {"-dc", QString::fromStdString(path + ".gz")});
  gz.waitForFinished(120000);
  const QByteArray bytes = gz.readAllStandardOutput();
  return parseJson(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), path);
}

std::string englishText(std::size_t bytes) {
  const std::string paragraph =
      "The attention head looks back at earlier tokens and weighs them; a model with 32 layers does this "
      "many times. Isn't it remarkable that 1,234,567 parameters can learn grammar? In 2024, researchers "
      "measured how heads specialise: some copy, some track syntax, others attend to the first token.\n";
  std::string text;
  while (text.size() < bytes) text += paragraph;
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : std::string(ATTNLAB_SOURCE_DIR) + "/../shared/fixtures/hf-tokenizers";
  const std::string text = englishText(100000);
  std::printf("%-10s %10s %10s %12s %10s\n", "file", "load ms", "tokens", "encode ms", "MB/s");
  for (const char* name : {"llama3_1", "qwen3", "mixtral", "gemma3"}) {
    const std::string base = dir + "/" + name;
    const auto t0 = std::chrono::steady_clock::now();
    const nlohmann::json j = readMaybeGzipped(base + "/tokenizer.json");
    if (j.empty()) {
      std::printf("%-10s missing\n", name);
      continue;
    }
    const auto tok = HfTokenizer::fromJson(j, readMaybeGzipped(base + "/tokenizer_config.json"), name);
    const double loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::size_t tokens = 0;
    const double ms = bench::medianOfRuns(7, [&] { tokens = tok->encode(text, true).tokens.size(); });
    std::printf("%-10s %10.0f %10zu %12.1f %10.2f\n", name, loadMs, tokens, ms, text.size() / ms / 1000.0);
  }
  std::printf("target: 100 KB of English text in well under 1000 ms (Llama-3)\n");
  return 0;
}
