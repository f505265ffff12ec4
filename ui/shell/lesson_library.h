#pragma once
// Where lessons come from: the nine shipped with the program (compiled-in resources, ":/lessons/")
// and the user's own files. Reading goes through QFile, so both are the same to the parser.
#include <QString>
#include <QStringList>

#include "core/session/lesson.h"

namespace attnlab::ui {

/// The shipped lesson files in order (":/lessons/01_….json", …).
QStringList builtinLessonFiles();

/// Reads and parses a lesson file; throws InputError naming the file, the step and the field.
Lesson loadLessonFile(const QString& path);

}  // namespace attnlab::ui
