#pragma once
// Command-line parsing shared by every subcommand: `--name value` options and `--flag` switches from
// a table, and the mapping of the parameter options onto the one Params struct (after --params FILE).
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/model/generate.h"
#include "core/session/params.h"

namespace attnlab::cli {

struct Option {
  std::string name;  ///< without the leading "--"
  bool takesValue;
  std::string help;
};

struct Args {
  std::map<std::string, std::string> values;                 ///< the last value given for each option
  std::map<std::string, std::vector<std::string>> repeated;  ///< every value, in order (--corpus A --corpus B)
  std::set<std::string> flags;

  bool has(const std::string& name) const { return values.count(name) || flags.count(name); }
  std::string value(const std::string& name, const std::string& fallback = {}) const;
  /// Typed accessors throw InputError naming the option when the text is not a number in range.
  int intValue(const std::string& name, int fallback, int lo, int hi) const;
  double doubleValue(const std::string& name, double fallback, double lo, double hi) const;
};

/// The options every model-running subcommand accepts (they mirror the GUI's parameter panel).
const std::vector<Option>& paramOptions();

/// Parses argv[first..]; unknown options and missing values throw InputError.
Args parse(int argc, char** argv, int first, const std::vector<Option>& options);

/// Params from --params FILE (if given), then every individual option on top.
Params paramsFromArgs(const Args& args);
/// generate's choice of the next token: greedy unless --temperature, --top-k or --top-p is given (with --seed);
/// --greedy together with them is refused.
SamplingOptions samplingOptionsFromArgs(const Args& args);

/// paramsFromArgs for the commands that read one text (dump, predict, generate, patch, heads without --source):
/// an encoder–decoder folder (or builtin:reverse) is refused naming --source, instead of failing later on its
/// tokenizer or running its source alone.
Params oneTextParamsFromArgs(const Args& args);

/// The parameters of a session or params FILE (--params) over `base`: refused when the file is not a regular file,
/// not JSON, or a session of a newer program (as the window refuses it); a bad field is named.
Params paramsFromFile(const std::string& path, const Params& base);
/// The text of --sentence-file: throws InputError naming the file when it cannot be read, holds a NUL byte (not
/// text: the offset is named) or only white space. Invalid UTF-8 is kept: tokens show U+FFFD for its bytes.
std::string readSentenceFile(const std::string& path);
/// JSON text of a command's output, indent −1 = compact. Bytes of the user's text that are not UTF-8 (a sentence
/// read with --sentence-file) are written as U+FFFD: JSON holds only UTF-8, and a dump must not stop on them.
std::string jsonText(const nlohmann::json& j, int indent = -1);
/// Writes text to a file ("-" or empty: stdout); throws InputError naming it on failure.
void writeText(const std::string& path, const std::string& text);

}  // namespace attnlab::cli
