#include "app/cli_document_out.h"

#include <filesystem>
#include <iostream>

#include "app/cli_args.h"
#include "core/base/atomic_file.h"
#include "core/base/errors.h"

namespace attnlab::cli {

void writeJsonDocument(const std::string& out, int indent, const std::function<void(JsonStreamWriter&)>& write) {
  if (out.empty() || out == "-") {
    JsonStreamWriter json(
        [](std::string_view text) {
          std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
          if (!std::cout) throw InputError("cannot write to standard output");
        },
        indent);
    write(json);
    std::cout << "\n";
    std::cout.flush();
    if (!std::cout) throw InputError("cannot write to standard output");
    return;
  }
  AtomicFileWriter file(out);  // a failure leaves the old file
  JsonStreamWriter json([&file](std::string_view text) { file.write(text); }, indent);
  write(json);
  file.write("\n");
  file.commit();
}

void writeNpyFolder(const std::string& dir, int indent, const std::function<nlohmann::json(const NpyFileSink&)>& make) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir))
    throw InputError("--npy " + dir + ": cannot create the folder" + (error ? " (" + error.message() + ")" : ""));
  const auto path = [&dir](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  const nlohmann::json index =
      make([&](const std::string& name, const std::string& bytes) { writeFileAtomically(path(name), bytes); });
  writeFileAtomically(path("index.json"), jsonText(index, indent) + "\n");
}

}  // namespace attnlab::cli
