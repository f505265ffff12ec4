#pragma once
// The encoder–decoder window tests' shared set-up (issue 33): a tiny checkpoint folder with its tokenizer files beside
// it, opening it in a MainWindow with a source text and waiting for its first two-text result, and target ids as the
// text the window writes. Header-only, as tests/fuzzy_compare.h: each test room's program includes what it uses.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <string>
#include <vector>

#include "core/text/tokenizer.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/shell/model_opener.h"
#include "ui/views/common/encdec_result.h"

namespace attnlab::test {

/// A folder `name` in `tmp` with config.json and model.safetensors of tests/reference/encdec/`weights` and every file
/// of tests/reference/`tokenizer` (if named) beside them but `skip`.
inline QString makeEncDecFolder(const QTemporaryDir& tmp, const QString& name, const QString& weights,
                                const QString& tokenizer, const QString& skip = {}) {
  const QString dir = tmp.path() + "/" + name;
  QDir(tmp.path()).mkdir(name);
  const QString from = QString(ATTNLAB_TEST_DATA) + "/reference/encdec/" + weights;
  for (const char* f : {"config.json", "model.safetensors"}) QFile::copy(from + "/" + f, dir + "/" + f);
  const QString tok = QString(ATTNLAB_TEST_DATA) + "/reference/" + tokenizer;
  if (!tokenizer.isEmpty())
    for (const QString& f : QDir(tok).entryList(QDir::Files))
      if (f != skip) QFile::copy(tok + "/" + f, dir + "/" + f);
  return dir;
}

/// tests/reference/encdec/marian-spm's weights with tests/reference/tokenizers/spm/marian's files beside them (396
/// pieces, the model's vocabulary). `skip` leaves one tokenizer file out.
inline QString makeMarianFolder(const QTemporaryDir& tmp, const QString& name = "marian", const QString& skip = {}) {
  return makeEncDecFolder(tmp, name, "marian-spm", "tokenizers/spm/marian", skip);
}

/// tests/reference/encdec/t5-spm's weights (a tiny T5 v1.1, vocab_size 504) with tests/reference/tokenizers/spm's
/// t5like.model beside them as spiece.model and, unless `spieceOnly`, t5like.json as tokenizer.json (400 pieces and
/// 3 <extra_id_N>), as a Hugging Face T5 folder holds them.
inline QString makeT5Folder(const QTemporaryDir& tmp, const QString& name = "t5", bool spieceOnly = false) {
  const QString dir = makeEncDecFolder(tmp, name, "t5-spm", {});
  const QString spm = QString(ATTNLAB_TEST_DATA) + "/reference/tokenizers/spm/";
  QFile::copy(spm + "t5like.model", dir + "/spiece.model");
  if (!spieceOnly) QFile::copy(spm + "t5like.json", dir + "/tokenizer.json");
  return dir;
}

/// Whether the window's last result is a two-text run.
inline bool encdecShown(ui::MainWindow& w) {
  const ui::ResultPtr r = w.controller()->lastResult();
  return r && ui::encDecRunOf(*r) != nullptr;
}

/// Opens `dir` (a folder or a builtin: name) with `source` as the sentence and an empty target; returns at once.
inline void openEncDec(ui::MainWindow& w, const QString& dir, const std::string& source) {
  Params p = w.controller()->params();
  p.sentence = source;
  p.target.clear();
  w.applyParams(p);
  w.modelOpener()->open(dir);
}

/// openEncDec, then waits up to 20 s for the first two-text result; false if none came (use in QVERIFY).
inline bool openEncDecAndWait(ui::MainWindow& w, const QString& dir, const std::string& source) {
  openEncDec(w, dir, source);
  return QTest::qWaitFor([&w] { return encdecShown(w); }, 20000);
}

/// Target ids as text, as the issue defines the translation shown: each piece with "▁" as a space (a WordPiece
/// vocabulary without "▁": words joined by spaces, "##" glued), eos left out, no leading space.
inline std::string piecesAsText(const TextTokenizer& target, const std::vector<int>& ids, int eos) {
  bool metaspace = false;
  for (int id = 0; id < target.vocabSize(); ++id)
    metaspace = metaspace || target.pieceOf(id).rfind("\xE2\x96\x81", 0) == 0;
  std::string text;
  for (int id : ids) {
    if (id == eos) continue;
    std::string piece = target.pieceOf(id);
    if (!metaspace) piece = piece.rfind("##", 0) == 0 ? piece.substr(2) : "\xE2\x96\x81" + piece;
    for (std::size_t i = 0; i < piece.size();) {
      if (piece.compare(i, 3, "\xE2\x96\x81") == 0) {
        text += ' ';
        i += 3;
      } else {
        text += piece[i++];
      }
    }
  }
  return text.substr(std::min(text.size(), text.find_first_not_of(' ')));
}

}  // namespace attnlab::test
