#include "core/base/json_stream.h"

#include <array>
#include <cmath>

#include "core/base/errors.h"

namespace attnlab {

JsonStreamWriter::JsonStreamWriter(Sink sink, int indent, std::size_t flushBytes)
    : sink_(std::move(sink)), indent_(indent), flushBytes_(flushBytes) {
  buffer_.reserve(flushBytes_ + 4096);
}

void JsonStreamWriter::newline(std::size_t depth) {
  buffer_ += '\n';
  buffer_.append(depth * static_cast<std::size_t>(indent_), ' ');
}

void JsonStreamWriter::separate() {
  if (afterKey_) {  // the value of a key follows it on the same line
    afterKey_ = false;
    return;
  }
  if (counts_.empty()) return;
  if (counts_.back()++ > 0) buffer_ += ',';
  if (indent_ >= 0) newline(counts_.size());
}

void JsonStreamWriter::flushIfFull() {
  if (buffer_.size() < flushBytes_) return;
  sink_(buffer_);
  buffer_.clear();
}

void JsonStreamWriter::beginObject() {
  separate();
  buffer_ += '{';
  counts_.push_back(0);
}

void JsonStreamWriter::beginArray() {
  separate();
  buffer_ += '[';
  counts_.push_back(0);
}

void JsonStreamWriter::endObject() {
  if (counts_.empty()) throw InputError("JSON stream: an object closed that was not open");
  const std::size_t count = counts_.back();
  counts_.pop_back();
  if (count > 0 && indent_ >= 0) newline(counts_.size());  // nlohmann writes an empty object as {}
  buffer_ += '}';
  flushIfFull();
}

void JsonStreamWriter::endArray() {
  if (counts_.empty()) throw InputError("JSON stream: an array closed that was not open");
  const std::size_t count = counts_.back();
  counts_.pop_back();
  if (count > 0 && indent_ >= 0) newline(counts_.size());
  buffer_ += ']';
  flushIfFull();
}

void JsonStreamWriter::key(std::string_view name) {
  separate();
  buffer_ += nlohmann::json(std::string(name)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  buffer_ += indent_ >= 0 ? ": " : ":";
  afterKey_ = true;
}

void JsonStreamWriter::number(double v) {
  separate();
  if (!std::isfinite(v)) {
    buffer_ += "null";  // JSON has no infinities or NaN; null marks them so a reader sees the hole
    return;
  }
  // nlohmann's own formatter (what dump() calls for a double), so the text is the same to the byte.
  std::array<char, 64> text{};
  const char* end = nlohmann::detail::to_chars(text.data(), text.data() + text.size(), v);
  buffer_.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

void JsonStreamWriter::value(const nlohmann::json& j) {
  separate();
  const std::string text = j.dump(indent_, ' ', false, nlohmann::json::error_handler_t::replace);
  if (indent_ < 0 || counts_.empty()) {
    buffer_ += text;
  } else {
    // dump() indents from column 0; shift its lines to this depth (a string in JSON text holds no raw newline).
    const std::string shift = "\n" + std::string(counts_.size() * static_cast<std::size_t>(indent_), ' ');
    for (char c : text) {
      if (c == '\n')
        buffer_ += shift;
      else
        buffer_ += c;
    }
  }
  flushIfFull();
}

template <typename M>
void JsonStreamWriter::rows(const M& m) {
  beginArray();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    beginArray();
    for (Eigen::Index j = 0; j < m.cols(); ++j) number(static_cast<double>(m(i, j)));
    endArray();
  }
  endArray();
}

void JsonStreamWriter::matrix(const Mat& m) { rows(m); }
void JsonStreamWriter::matrix(const MatD& m) { rows(m); }

void JsonStreamWriter::finish() {
  if (!counts_.empty()) throw InputError("JSON stream: finished with an object or array still open");
  if (!buffer_.empty()) sink_(buffer_);
  buffer_.clear();
}

}  // namespace attnlab
