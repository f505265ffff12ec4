#pragma once
// Where a subcommand's document goes (dump with one or two texts): a JSON document streamed as it is made, to a file
// written atomically (a failure leaves the old file) or to standard output; or --npy DIR, the matrices as .npy files
// and an index.json naming them.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>
#include "core/base/json_stream.h"

namespace attnlab::cli {

/// Streams the document `write` makes to `out` ("" or "-": standard output), then a newline. Throws InputError when
/// standard output cannot be written.
void writeJsonDocument(const std::string& out, int indent, const std::function<void(JsonStreamWriter&)>& write);

/// Writes one matrix file: its name in the folder and its bytes.
using NpyFileSink = std::function<void(const std::string& name, const std::string& bytes)>;

/// --npy DIR: creates the folder, lets `make` write the matrices through the sink it is given and return the index,
/// then writes DIR/index.json last (an index names only files that exist). Throws InputError when the folder cannot
/// be made.
void writeNpyFolder(const std::string& dir, int indent, const std::function<nlohmann::json(const NpyFileSink&)>& make);

}  // namespace attnlab::cli
