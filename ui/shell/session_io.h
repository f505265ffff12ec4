#pragma once
// Session files on disk: written atomically (QSaveFile: the old file stays intact until the new one
// is complete), read with a message for every problem. Nothing here touches the window: a failed
// open leaves whatever is open untouched, because the caller applies the result only on success.
#include <QString>
#include <optional>

#include "core/session/params.h"

namespace attnlab::ui {

/// File-dialog filter for sessions.
QString sessionFileFilter();

/// Writes the session; returns an empty string on success, else the problem.
QString saveSessionFile(const QString& path, const Params& p);

/// Reads a session; on failure returns nothing and sets `error` to a message naming the file. Keys the program does not
/// read (unknownParamsKeys) are no failure: `warning`, when given, names them and the file (empty when there are none).
std::optional<Params> loadSessionFile(const QString& path, QString* error, QString* warning = nullptr);

}  // namespace attnlab::ui
