#pragma once
// One JSON document written as a stream of text, never held whole (`attnlab dump` of a long input: a tree of
// nlohmann::json values took three times the text's size). The text is nlohmann's dump() byte for byte, compact
// or indented, NaN and infinities as null, bytes that are not UTF-8 as U+FFFD — given the keys of each object in
// the order nlohmann keeps them (sorted): the caller's job. Text goes to the sink in pieces of about a megabyte.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/tensor.h"

namespace attnlab {

class JsonStreamWriter {
 public:
  using Sink = std::function<void(std::string_view)>;

  /// `indent` −1: compact; N ≥ 0: N spaces per level, as nlohmann's dump(N).
  explicit JsonStreamWriter(Sink sink, int indent = -1, std::size_t flushBytes = std::size_t(1) << 20);

  void beginObject();
  void endObject();
  void beginArray();
  void endArray();
  /// The key of the next value in the open object.
  void key(std::string_view name);
  /// A number (nlohmann's shortest round-trip form, "1.0" for a whole double); null when not finite.
  void number(double v);
  /// A small value written whole (the config, the parameters, a list of tokens).
  void value(const nlohmann::json& j);
  /// A matrix as an array of rows, [rows][cols].
  void matrix(const Mat& m);
  void matrix(const MatD& m);
  /// Hands what is left to the sink; the document must be closed.
  void finish();

 private:
  void separate();  ///< the comma and line break before a value or key
  void newline(std::size_t depth);
  void flushIfFull();
  template <typename M>
  void rows(const M& m);

  Sink sink_;
  int indent_;
  std::size_t flushBytes_;
  std::string buffer_;
  std::vector<std::size_t> counts_;  ///< values written so far in each open container, outermost first
  bool afterKey_ = false;
};

}  // namespace attnlab
