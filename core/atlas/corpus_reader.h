#pragma once
// The corpus as a stream of text chunks (issue 17, bad input): files and folders (their files, recursively, in
// name order), each file checked in one pass of blocks before its text is handed out — empty, binary (a NUL byte
// in the first block) or not UTF-8 (the first bad byte's offset) files are skipped with a note — then read in
// chunks of about `chunkBytes`, cut before a line break or other whitespace so no word is split, never inside a
// UTF-8 sequence. A file with the same bytes as one read before (a copy, or one path given twice) is skipped with a
// note naming both: its contexts would be the earlier file's again. Memory: two blocks, whatever the corpus's size.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/model.h"

namespace attnlab {

/// The offset of the first byte of `s` that does not start or continue a well-formed UTF-8 sequence,
/// std::string_view::npos when every byte does. With `final` false, a sequence cut off by the end of `s` is not
/// an error: `*incomplete` (when given) receives the offset it starts at (s.size() when none).
std::size_t firstInvalidUtf8(std::string_view s, bool final = true, std::size_t* incomplete = nullptr);

/// The regular files of `paths` in the order they are scanned: a file as given, a folder's files recursively
/// in name order. A path that cannot be read adds a note to `notes`.
std::vector<std::string> expandCorpusPaths(const std::vector<std::string>& paths, std::vector<std::string>& notes);

struct CorpusChunk {
  std::string text;          ///< valid UTF-8
  std::string source;        ///< the file it came from
  bool fileStart = false;    ///< the first chunk of its file (a new token stream begins)
  long long byteOffset = 0;  ///< where `text` starts in its file
};

class CorpusReader {
 public:
  CorpusReader(const std::vector<std::string>& paths, std::size_t chunkBytes = std::size_t(1) << 20);
  /// The next chunk of text, false at the end of the corpus.
  bool next(CorpusChunk& chunk);
  /// Why files were skipped, in order: "corpus: skipped FILE: …".
  const std::vector<std::string>& notes() const { return notes_; }
  const std::vector<std::string>& files() const { return files_; }
  /// Fraction of the corpus's bytes read (skipped files count as read).
  double fraction() const;
  long long totalBytes() const { return totalBytes_; }

 private:
  bool openNext();
  /// Empty when the file holds text, else the reason it is skipped; `*hash` receives a hash of its bytes.
  std::string checkFile(const std::string& path, std::uint64_t& hash) const;
  /// The earlier file with the same bytes as `path` (size and hash, then compared byte by byte), or "".
  std::string sameBytesAs(const std::string& path, long long bytes, std::uint64_t hash);

  std::vector<std::string> files_, notes_;
  std::size_t chunkBytes_;
  std::size_t fileIndex_ = 0;
  long long totalBytes_ = 0, doneBytes_ = 0, fileBytes_ = 0, fileRead_ = 0;
  std::ifstream in_;
  std::string carry_;  ///< text read past the last cut
  bool fileStart_ = false;
  std::map<std::pair<long long, std::uint64_t>, std::vector<std::string>> seen_;  ///< (size, hash) → files read
};

/// One forward pass's input: the model's special tokens before (BOS) and after ([SEP]) a run of the file's tokens.
struct ScanWindow {
  TokenizedText text;
  std::string source;        ///< the file
  long long firstToken = 0;  ///< index of the first content token in the file's token stream (specials excluded)
  int prefix = 0, suffix = 0;
};

/// The corpus cut into windows of at most `window` tokens: each file's text tokenized chunk by chunk as one
/// continuing stream (the special tokens the tokenizer puts around a text dropped), then cut into runs of
/// window − prefix − suffix tokens, each wrapped in the special tokens the model puts around a text (BOS for
/// Llama-style models, [CLS] … [SEP] for BERT, none for GPT-2). Windows never span two files; a file's last
/// window is shorter. Throws InputError when the window cannot hold two tokens besides the specials.
class TokenWindows {
 public:
  TokenWindows(const Model& model, CorpusReader& reader, int window);
  /// The next window, false at the end of the corpus.
  bool next(ScanWindow& out);
  /// Tokens of content (specials excluded) handed out so far.
  long long tokens() const { return tokens_; }

 private:
  void startFile(const CorpusChunk& chunk);
  void addChunk(const CorpusChunk& chunk);
  void take(ScanWindow& out, std::size_t count);

  const Model& model_;
  CorpusReader& reader_;
  int content_ = 0;
  TokenizedText prefix_, suffix_;
  TokenizedText pending_;  ///< the current file's tokens not yet in a window, from `begin_`
  std::size_t begin_ = 0;
  std::string source_;
  long long fileToken_ = 0;  ///< file token index of pending_[begin_]
  long long tokens_ = 0;
  bool fileOpen_ = true;             ///< false once the current file has no more chunks
  std::optional<CorpusChunk> held_;  ///< the first chunk of the next file, read while looking for more of this one
};

}  // namespace attnlab
