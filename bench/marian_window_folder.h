#pragma once
// The opus-mt-shape Marian folder the window benchmarks open (bench_encdec_window, bench_encdec_generate): random
// weights written once to /tmp (marian_checkpoint.h), with the test Marian's SentencePiece files beside them.
#include <QDir>
#include <QFile>
#include <QString>
#include <filesystem>
#include <string>

#include "bench/marian_checkpoint.h"
#include "core/base/json_file.h"

namespace attnlab::bench {

inline std::string marianWindowFolder() {
  const std::string dir = "/tmp/attnlab-bench-marian-window";
  if (!fileExists(dir + "/model.safetensors")) {
    std::filesystem::create_directories(dir);
    writeMarianCheckpoint(dir);
  }
  const QString spm = QString(ATTNLAB_SOURCE_DIR) + "/tests/reference/tokenizers/spm/marian";
  for (const QString& f : QDir(spm).entryList(QDir::Files))
    QFile::copy(spm + "/" + f, QString::fromStdString(dir) + "/" + f);
  return dir;
}

}  // namespace attnlab::bench
