#pragma once
// File ▸ Export and a view's context menu "Export…": format (PNG, SVG, PDF, CSV, JSON, NPY), size as
// shown, a preset for slides and papers (figurePresetNames) or custom in pixels or centimetres, DPI or scale for PNG,
// font scale, the matrix for NPY, and the file. Produces an ExportRequest; ViewActions carries it out. The format and
// the file name's extension follow each other (typing "figure.png" selects PNG); a name without a folder goes to the
// folder of the last export (QSettings export/lastFolder).
#include <QDialog>

#include "ui/shell/view_export.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QLabel;

namespace attnlab::ui {

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  /// `shownSize` is the view's size on screen; `matrices` the names of its numbers (for NPY).
  ExportDialog(const QString& viewName, const QSize& shownSize, const QStringList& matrices, QWidget* parent = nullptr);

  ExportRequest request() const;
  /// Export the view as it is on screen (no offscreen copy at another size).
  bool asShown() const;
  /// Sets the file; a known extension selects its format.
  void setPath(const QString& path);
  /// The file that will be written: absolute, relative names resolved in the last export's folder,
  /// the format's extension appended when the name has none of the export formats'.
  QString resolvedPath() const;
  /// The folder of the last accepted export (home at first).
  static QString lastFolder();

 private:
  void updateEnabled();
  void browse();
  void formatChanged();
  void pathEdited();
  void accepted();
  /// Where the file goes, for the summary (and why an extension was added).
  QString destination() const;

  QString view_;
  QSize shown_;
  /// A preset size sets the size fields (centimetres); editing them by hand shows "custom size" again.
  void presetChosen();
  void sizeEdited();

  QComboBox *format_, *unit_, *matrix_, *preset_;
  QCheckBox* asShown_;
  QDoubleSpinBox *width_, *height_, *dpi_, *scale_, *fontScale_;
  QLineEdit* path_;
  QLabel* summary_;
};

}  // namespace attnlab::ui
