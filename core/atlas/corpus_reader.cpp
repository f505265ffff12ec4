#include "core/atlas/corpus_reader.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/base/errors.h"
#include "core/text/utf8.h"

namespace attnlab {

namespace fs = std::filesystem;

namespace {

/// Bytes of the UTF-8 sequence a lead byte starts (0 for a byte that cannot start one).
int sequenceLength(unsigned char b) {
  if (b < 0x80) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 0;
}

/// True when s[pos…] is the start of a sequence cut off by the end of s (its bytes so far are well-formed).
bool cutOff(std::string_view s, std::size_t pos) {
  const int len = sequenceLength(static_cast<unsigned char>(s[pos]));
  if (len <= 1 || pos + static_cast<std::size_t>(len) <= s.size()) return false;
  for (std::size_t i = pos + 1; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) return false;
  return true;
}

std::string skipped(const std::string& path, const std::string& why) { return "corpus: skipped " + path + ": " + why; }

/// FNV-1a, 64 bits, continued over `bytes` from `hash`: a cheap fingerprint, confirmed byte by byte on a match.
std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001B3ull;
  return hash;
}
constexpr std::uint64_t kFnvBasis = 0xCBF29CE484222325ull;

/// True when the two files hold the same bytes (read a block at a time).
bool sameFileBytes(const std::string& a, const std::string& b, std::size_t blockBytes) {
  std::ifstream ia(a, std::ios::binary), ib(b, std::ios::binary);
  if (!ia || !ib) return false;
  std::string ba(blockBytes, '\0'), bb(blockBytes, '\0');
  for (;;) {
    ia.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    ib.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    const auto ga = ia.gcount(), gb = ib.gcount();
    if (ga != gb || ba.compare(0, static_cast<std::size_t>(ga), bb, 0, static_cast<std::size_t>(gb)) != 0) return false;
    if (ga < static_cast<std::streamsize>(ba.size())) return true;
  }
}

}  // namespace

std::size_t firstInvalidUtf8(std::string_view s, bool final, std::size_t* incomplete) {
  if (incomplete) *incomplete = s.size();
  for (std::size_t pos = 0; pos < s.size();) {
    if (static_cast<unsigned char>(s[pos]) < 0x80) {  // ASCII fast path
      ++pos;
      continue;
    }
    const utf8::CodePoint cp = utf8::decode(s, pos);
    if (cp.valid) {
      pos += cp.size;
      continue;
    }
    if (!final && cutOff(s, pos)) {
      if (incomplete) *incomplete = pos;
      return std::string_view::npos;
    }
    return pos;
  }
  return std::string_view::npos;
}

std::vector<std::string> expandCorpusPaths(const std::vector<std::string>& paths, std::vector<std::string>& notes) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      notes.push_back("corpus: cannot read " + path + ": no such file or folder");
    } else if (fs::is_directory(st)) {
      std::vector<std::string> inside;
      for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
           !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec)) inside.push_back(it->path().string());
      if (ec) notes.push_back("corpus: cannot list all of " + path + ": " + ec.message());
      if (inside.empty()) notes.push_back("corpus: the folder " + path + " holds no files");
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    } else if (fs::is_regular_file(st)) {
      files.push_back(path);
    } else {
      notes.push_back("corpus: cannot read " + path + ": not a regular file");
    }
  }
  return files;
}

CorpusReader::CorpusReader(const std::vector<std::string>& paths, std::size_t chunkBytes)
    : chunkBytes_(std::max<std::size_t>(chunkBytes, 16)) {
  files_ = expandCorpusPaths(paths, notes_);
  for (const std::string& f : files_) {
    std::error_code ec;
    const auto size = fs::file_size(f, ec);
    if (!ec) totalBytes_ += static_cast<long long>(size);
  }
}

double CorpusReader::fraction() const {
  if (totalBytes_ <= 0) return 1.0;
  return std::min(1.0, static_cast<double>(doneBytes_ + fileRead_) / static_cast<double>(totalBytes_));
}

std::string CorpusReader::checkFile(const std::string& path, std::uint64_t& hash) const {
  hash = kFnvBasis;
  std::ifstream in(path, std::ios::binary);
  if (!in) return "it cannot be opened";
  std::string block(chunkBytes_, '\0'), text;
  long long offset = 0;  // of text[0] in the file
  for (bool first = true;; first = false) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (first && got == 0) return "the file is empty";
    if (first) {
      const std::size_t nul = std::string_view(block.data(), got).find('\0');
      if (nul != std::string_view::npos) return "binary file (a NUL byte at offset " + std::to_string(nul) + ")";
    }
    hash = fnv1a(hash, std::string_view(block.data(), got));
    text.append(block.data(), got);
    const bool final = got < block.size();
    std::size_t incomplete = 0;
    const std::size_t bad = firstInvalidUtf8(text, final, &incomplete);
    if (bad != std::string_view::npos)
      return "not UTF-8 text (the first bad byte at offset " + std::to_string(offset + static_cast<long long>(bad)) +
             ")";
    if (final) return {};
    offset += static_cast<long long>(incomplete);
    text.erase(0, incomplete);
  }
}

std::string CorpusReader::sameBytesAs(const std::string& path, long long bytes, std::uint64_t hash) {
  std::vector<std::string>& earlier = seen_[{bytes, hash}];
  for (const std::string& e : earlier)
    if (sameFileBytes(e, path, chunkBytes_)) return e;
  earlier.push_back(path);
  return {};
}

bool CorpusReader::openNext() {
  while (fileIndex_ < files_.size()) {
    const std::string& path = files_[fileIndex_++];
    doneBytes_ += fileBytes_;
    fileBytes_ = fileRead_ = 0;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    const long long bytes = ec ? 0 : static_cast<long long>(size);
    std::uint64_t hash = 0;
    std::string why = checkFile(path, hash);
    if (why.empty()) {
      const std::string same = sameBytesAs(path, bytes, hash);
      if (!same.empty()) why = "the same bytes as " + same + ", scanned once";
    }
    if (!why.empty()) {
      notes_.push_back(skipped(path, why));
      doneBytes_ += bytes;
      continue;
    }
    in_ = std::ifstream(path, std::ios::binary);
    if (!in_) {
      notes_.push_back(skipped(path, "it cannot be opened"));
      doneBytes_ += bytes;
      continue;
    }
    fileBytes_ = bytes;
    carry_.clear();
    fileStart_ = true;
    return true;
  }
  return false;
}

bool CorpusReader::next(CorpusChunk& chunk) {
  for (;;) {
    if (!in_.is_open() && !openNext()) return false;
    std::string text = std::move(carry_);
    carry_.clear();
    const std::size_t before = text.size();
    text.resize(before + chunkBytes_);
    in_.read(text.data() + before, static_cast<std::streamsize>(chunkBytes_));
    const auto got = static_cast<std::size_t>(in_.gcount());
    text.resize(before + got);
    const long long start = fileRead_ - static_cast<long long>(before);
    fileRead_ += static_cast<long long>(got);
    const bool atEnd = got < chunkBytes_;
    if (atEnd) in_.close();
    std::size_t cut = text.size();
    if (!atEnd) {  // cut before the last line break, else the last blank, else after the last whole character
      cut = text.find_last_of('\n');
      if (cut == std::string::npos || cut == 0) cut = text.find_last_of(" \t\r\f\v");
      if (cut == std::string::npos || cut == 0) firstInvalidUtf8(text, false, &cut);
    }
    carry_ = text.substr(cut);
    text.resize(cut);
    if (text.empty()) continue;  // nothing before the cut yet (read on with the carry), or the file ended
    chunk.text = std::move(text);
    chunk.source = files_[fileIndex_ - 1];
    chunk.fileStart = fileStart_;
    chunk.byteOffset = start;
    fileStart_ = false;
    return true;
  }
}

}  // namespace attnlab

namespace attnlab {

namespace {

bool special(const Token& t) { return t.byteBegin == t.byteEnd; }

void append(TokenizedText& to, const TokenizedText& from, std::size_t begin, std::size_t end) {
  to.tokens.insert(to.tokens.end(), from.tokens.begin() + static_cast<std::ptrdiff_t>(begin),
                   from.tokens.begin() + static_cast<std::ptrdiff_t>(end));
  if (!from.ids.empty())
    to.ids.insert(to.ids.end(), from.ids.begin() + static_cast<std::ptrdiff_t>(begin),
                  from.ids.begin() + static_cast<std::ptrdiff_t>(end));
}

}  // namespace

TokenWindows::TokenWindows(const Model& model, CorpusReader& reader, int window) : model_(model), reader_(reader) {
  // The specials the tokenizer puts around any text: the empty-span tokens at either end of a one-word text.
  const TokenizedText probe = model.tokenize("a");
  std::size_t first = 0, last = probe.tokens.size();
  while (first < last && special(probe.tokens[first])) ++first;
  while (last > first && special(probe.tokens[last - 1])) --last;
  append(prefix_, probe, 0, first);
  append(suffix_, probe, last, probe.tokens.size());
  content_ = window - static_cast<int>(prefix_.tokens.size() + suffix_.tokens.size());
  if (content_ < 2)
    throw InputError("a corpus window of " + std::to_string(window) +
                     " tokens cannot hold two tokens of text besides the model's special tokens");
}

void TokenWindows::startFile(const CorpusChunk& chunk) {
  pending_ = {};
  begin_ = 0;
  fileToken_ = 0;
  source_ = chunk.source;
  addChunk(chunk);
}

void TokenWindows::addChunk(const CorpusChunk& chunk) {
  if (begin_ > 0) {  // drop what earlier windows took, once per chunk
    TokenizedText rest;
    append(rest, pending_, begin_, pending_.tokens.size());
    pending_ = std::move(rest);
    begin_ = 0;
  }
  const TokenizedText t = model_.tokenize(chunk.text);
  std::size_t first = 0, last = t.tokens.size();
  while (first < last && special(t.tokens[first])) ++first;
  while (last > first && special(t.tokens[last - 1])) --last;
  append(pending_, t, first, last);
}

void TokenWindows::take(ScanWindow& out, std::size_t count) {
  out.text = prefix_;
  append(out.text, pending_, begin_, begin_ + count);
  append(out.text, suffix_, 0, suffix_.tokens.size());
  out.source = source_;
  out.firstToken = fileToken_;
  out.prefix = static_cast<int>(prefix_.tokens.size());
  out.suffix = static_cast<int>(suffix_.tokens.size());
  begin_ += count;
  fileToken_ += static_cast<long long>(count);
  tokens_ += static_cast<long long>(count);
}

bool TokenWindows::next(ScanWindow& out) {
  const auto full = static_cast<std::size_t>(content_);
  for (;;) {
    const std::size_t available = pending_.tokens.size() - begin_;
    if (available >= full) {
      take(out, full);
      return true;
    }
    if (!fileOpen_) {  // the current file has ended: its last tokens make a shorter window
      if (available > 0) {
        take(out, available);
        return true;
      }
      if (!held_) return false;
      startFile(*held_);
      held_.reset();
      fileOpen_ = true;
      continue;
    }
    CorpusChunk chunk;
    if (!reader_.next(chunk)) {
      fileOpen_ = false;
    } else if (chunk.fileStart) {
      held_ = std::move(chunk);
      fileOpen_ = false;
    } else {
      addChunk(chunk);
    }
  }
}

}  // namespace attnlab
