#pragma once
#include <stdexcept>
#include <string>

namespace attnlab {

/// A user-facing problem with the input (a parameter, a sentence, a file). The message names the
/// problem in words a user understands; callers show it in a dialog or print it and exit non-zero.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

/// Thrown between layers when the run's cancel flag was raised.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace attnlab
