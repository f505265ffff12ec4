#pragma once
// The manual page attnlab(1), written from the same table as `attnlab --help` (app/cli_commands.cpp), so that it
// lists every subcommand and option the program has. The package installs it (`attnlab --man`, gzipped, at build).
#include <string>

namespace attnlab::cli {

/// The page in man(7) roff: NAME, SYNOPSIS, DESCRIPTION, one subsection per subcommand with its options, the
/// parameter options, FILES, ENVIRONMENT, EXIT STATUS.
std::string manPage(const std::string& version);

/// `text` for a roff line: backslashes and hyphens escaped, a leading '.' or '\'' made literal.
std::string roffEscape(const std::string& text);

}  // namespace attnlab::cli
