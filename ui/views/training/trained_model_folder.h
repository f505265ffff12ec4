#pragma once
// Where the Training pages put a trained model: "Use in views" saves into a new dated folder under
// AppData/trained and hands it to the window; "Save model…" asks for a folder. Both pages (the one-text
// TrainingView and the EncDecTrainingPanel) save through these, with the same folder rule and messages.
#include <QString>
#include <functional>

class QWidget;

namespace attnlab::ui {

/// Writes the page's model into a folder (created if missing); returns an error message or "".
using SaveModelFn = std::function<QString(const QString& dir)>;

/// AppData/trained/<stem>-<yyyyMMdd-hhmmss-zzz> (the parent created): a new folder each time, since the window
/// caches models by folder and a session that names an earlier one keeps working.
QString newTrainedModelFolder(const QString& stem);

/// "Use in views": saves into newTrainedModelFolder(stem); returns the folder, or "" after a warning that says why
/// the model could not be saved.
QString saveForViews(QWidget* parent, const QString& stem, const SaveModelFn& save);

/// "Save model…": asks for a folder (`caption`, suggested ~/<suggestedName>), saves, warns when that fails.
void saveWithDialog(QWidget* parent, const QString& caption, const QString& suggestedName, const SaveModelFn& save);

}  // namespace attnlab::ui
