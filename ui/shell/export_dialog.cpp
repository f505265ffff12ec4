#include "ui/shell/export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace attnlab::ui {
namespace {

QDoubleSpinBox* number(double lo, double hi, double value, int decimals, const QString& tip) {
  auto* s = new QDoubleSpinBox;
  s->setRange(lo, hi);
  s->setDecimals(decimals);
  s->setValue(value);
  s->setToolTip(tip);
  return s;
}

/// `path` with `format`'s extension: a known export extension is replaced when `replace`, any other
/// kept and the format's appended ("notes.v2" → "notes.v2.pdf").
QString withFormatExtension(const QString& path, const QString& format, bool replace) {
  const QString known = exportFormatFromPath(path);
  if (known == format) return path;
  if (!known.isEmpty() && replace) return path.chopped(known.size()) + format;
  if (!known.isEmpty()) return path;
  return path + (path.endsWith('.') ? "" : ".") + format;
}

}  // namespace

ExportDialog::ExportDialog(const QString& viewName, const QSize& shownSize, const QStringList& matrices,
                           QWidget* parent)
    : QDialog(parent), view_(viewName), shown_(shownSize) {
  setWindowTitle(tr("Export %1").arg(viewName));
  QSettings settings;
  format_ = new QComboBox;
  format_->addItem(tr("PDF (vector, fonts embedded)"), "pdf");
  format_->addItem(tr("SVG (vector)"), "svg");
  format_->addItem(tr("PNG (raster)"), "png");
  format_->addItem(tr("CSV numbers, with token labels"), "csv");
  format_->addItem(tr("JSON numbers"), "json");
  format_->addItem(tr("NPY numbers (numpy.load)"), "npy");
  format_->setToolTip(tr("A figure (PDF, SVG, PNG) or the numbers behind the view (CSV, JSON, NPY)."));
  format_->setCurrentIndex(std::max(0, format_->findData(settings.value("export/format", "pdf"))));

  asShown_ = new QCheckBox(tr("as shown on screen (%1 × %2 px)").arg(shownSize.width()).arg(shownSize.height()));
  asShown_->setToolTip(tr("Export the view at its size on screen; untick to choose a size."));
  asShown_->setChecked(settings.value("export/asShown", true).toBool());
  width_ = number(1, 20000, settings.value("export/width", 1200).toDouble(), 2, tr("Figure width."));
  height_ = number(1, 20000, settings.value("export/height", 900).toDouble(), 2, tr("Figure height."));
  unit_ = new QComboBox;
  unit_->addItem(tr("pixels"), "px");
  unit_->addItem(tr("cm"), "cm");
  unit_->setToolTip(tr("Pixels, or centimetres on paper (laid out at 96 px per inch, so 9 pt text prints at 9 pt)."));
  unit_->setCurrentIndex(std::max(0, unit_->findData(settings.value("export/unit", "px"))));
  preset_ = new QComboBox;
  preset_->addItem(tr("custom size"), QString());
  for (const QString& name : figurePresetNames()) preset_->addItem(figurePresetLabel(name), name);
  preset_->setToolTip(tr("A size for slides or papers; the view is laid out again for it, not squashed."));
  dpi_ = number(30, 2400, settings.value("export/dpi", 300).toDouble(), 0, tr("PNG resolution in dots per inch."));
  scale_ = number(0.25, 16, settings.value("export/scale", 2).toDouble(), 2,
                  tr("PNG pixels per screen pixel (with sizes in pixels): 2 for sharp slides."));
  fontScale_ = number(0.5, 6, 1, 2, tr("Larger fonts in the figure, as in presentation mode."));
  matrix_ = new QComboBox;
  matrix_->setToolTip(tr("An .npy file holds one array: which matrix of the view to write."));
  matrix_->addItem(tr("all (stacked, when they share a shape)"), QString());
  for (const QString& m : matrices) matrix_->addItem(m, m);
  path_ = new QLineEdit;
  path_->setToolTip(
      tr("The file to write. Its extension and the format follow each other; a name without a "
         "folder goes to the folder of the last export."));
  auto* browse = new QPushButton(tr("Browse…"));
  connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(path_, 1);
  pathRow->addWidget(browse);
  auto* sizeRow = new QHBoxLayout;
  sizeRow->addWidget(width_);
  sizeRow->addWidget(new QLabel("×"));
  sizeRow->addWidget(height_);
  sizeRow->addWidget(unit_);
  summary_ = new QLabel;
  summary_->setWordWrap(true);

  auto* form = new QFormLayout;
  form->addRow(tr("&Format"), format_);
  form->addRow(tr("Size"), asShown_);
  form->addRow(tr("&Preset"), preset_);
  form->addRow(QString(), sizeRow);
  form->addRow(tr("PNG &DPI"), dpi_);
  form->addRow(tr("PNG &scale"), scale_);
  form->addRow(tr("F&ont scale"), fontScale_);
  form->addRow(tr("NPY &matrix"), matrix_);
  // A row whose field is a layout gets no buddy from QFormLayout, and a label without one shows its '&'.
  auto* fileLabel = new QLabel(tr("F&ile"));
  fileLabel->setBuddy(path_);
  form->addRow(fileLabel, pathRow);
  form->addRow(summary_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
  connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accepted);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(buttons);

  connect(format_, &QComboBox::currentIndexChanged, this, [this] { formatChanged(); });
  for (QComboBox* c : {unit_, matrix_}) connect(c, &QComboBox::currentIndexChanged, this, [this] { updateEnabled(); });
  connect(asShown_, &QCheckBox::toggled, this, [this] { updateEnabled(); });
  connect(preset_, &QComboBox::currentIndexChanged, this, [this] { presetChosen(); });
  for (QDoubleSpinBox* s : {width_, height_}) connect(s, &QDoubleSpinBox::valueChanged, this, [this] { sizeEdited(); });
  connect(unit_, &QComboBox::currentIndexChanged, this, [this] { sizeEdited(); });
  for (QDoubleSpinBox* s : {width_, height_, dpi_, scale_})
    connect(s, &QDoubleSpinBox::valueChanged, this, [this] { updateEnabled(); });
  connect(path_, &QLineEdit::textEdited, this, [this] { pathEdited(); });
  setPath(QDir(lastFolder()).filePath(viewName + "." + format_->currentData().toString()));
  sizeEdited();
  updateEnabled();
}

void ExportDialog::presetChosen() {
  const std::optional<FigureSize> p = figurePreset(preset_->currentData().toString());
  if (!p) return;
  {
    const QSignalBlocker b1(width_), b2(height_), b3(unit_);
    unit_->setCurrentIndex(unit_->findData("cm"));
    width_->setValue(p->width);
    height_->setValue(p->height);
  }
  asShown_->setChecked(false);
  updateEnabled();
}

void ExportDialog::sizeEdited() {
  // The preset whose size the fields hold (the last export's, when reopened), else "custom size".
  int index = 0;
  for (int i = 1; i < preset_->count(); ++i) {
    const std::optional<FigureSize> p = figurePreset(preset_->itemData(i).toString());
    if (p && unit_->currentData() == "cm" && qFuzzyCompare(width_->value(), p->width) &&
        qFuzzyCompare(height_->value(), p->height))
      index = i;
  }
  const QSignalBlocker block(preset_);
  preset_->setCurrentIndex(index);
}

void ExportDialog::setPath(const QString& path) {
  path_->setText(path);
  pathEdited();
}

QString ExportDialog::lastFolder() {
  const QString folder = QSettings().value("export/lastFolder").toString();
  return !folder.isEmpty() && QDir(folder).exists() ? folder : QDir::homePath();
}

QString ExportDialog::resolvedPath() const {
  QString path = path_->text().trimmed();
  if (path.isEmpty()) return path;
  if (path == "~" || path.startsWith("~/")) path = QDir::homePath() + path.mid(1);
  if (QFileInfo(path).isRelative()) path = QDir(lastFolder()).filePath(path);
  return QDir::cleanPath(withFormatExtension(path, format_->currentData().toString(), false));
}

bool ExportDialog::asShown() const {
  return asShown_->isChecked() && isFigureFormat(format_->currentData().toString());
}

void ExportDialog::formatChanged() {
  // Keep the file name, give it the format's extension.
  if (!path_->text().isEmpty())
    path_->setText(withFormatExtension(path_->text(), format_->currentData().toString(), true));
  updateEnabled();
}

void ExportDialog::pathEdited() {
  // A known extension typed (or browsed to) selects its format; the name stays as typed.
  const QString format = exportFormatFromPath(path_->text().trimmed());
  const int index = format_->findData(format);
  if (index >= 0 && index != format_->currentIndex()) {
    const QSignalBlocker block(format_);
    format_->setCurrentIndex(index);
  }
  updateEnabled();
}

void ExportDialog::accepted() {
  if (path_->text().trimmed().isEmpty()) return browse();
  const QString path = resolvedPath();
  path_->setText(path);  // what will be written, shown
  QSettings s;
  s.setValue("export/format", format_->currentData());
  s.setValue("export/asShown", asShown_->isChecked());
  s.setValue("export/width", width_->value());
  s.setValue("export/height", height_->value());
  s.setValue("export/unit", unit_->currentData());
  s.setValue("export/dpi", dpi_->value());
  s.setValue("export/scale", scale_->value());
  s.setValue("export/lastFolder", QFileInfo(path).absolutePath());
  accept();
}

void ExportDialog::updateEnabled() {
  const QString format = format_->currentData().toString();
  const bool figure = isFigureFormat(format), cm = unit_->currentData() == "cm";
  const bool custom = figure && !asShown_->isChecked();
  asShown_->setEnabled(figure);
  for (QWidget* w : std::initializer_list<QWidget*>{width_, height_, unit_, fontScale_}) w->setEnabled(custom);
  preset_->setEnabled(figure);
  dpi_->setEnabled(format == "png" && custom && cm);
  scale_->setEnabled(format == "png" && !(custom && cm));
  matrix_->setEnabled(format == "npy");
  const ExportRequest r = request();
  if (format == "png") {
    const QSize px = asShown() ? shown_ : r.size.layoutPixels();
    const double s = cm && custom ? r.size.pngScale() : r.pngScale;
    summary_->setText(tr("PNG of %1 × %2 pixels.").arg(qRound(px.width() * s)).arg(qRound(px.height() * s)));
  } else if (figure) {
    summary_->setText(custom && cm ? tr("Page of %1 × %2 cm.").arg(width_->value()).arg(height_->value())
                                   : tr("Vector figure; text stays text, fonts embedded in PDF."));
  } else {
    summary_->setText(tr("The numbers the view draws, with token labels."));
  }
  summary_->setText(summary_->text() + "\n" + destination());
}

QString ExportDialog::destination() const {
  const QString typed = QFileInfo(path_->text().trimmed()).suffix();
  const QString path = resolvedPath();
  if (path.isEmpty()) return tr("Choose a file.");
  if (!typed.isEmpty() && exportFormatFromPath(path_->text().trimmed()).isEmpty())
    return tr("“.%1” is not an export format: saves %2").arg(typed, QDir::toNativeSeparators(path));
  return tr("Saves %1").arg(QDir::toNativeSeparators(path));
}

void ExportDialog::browse() {
  const QString format = format_->currentData().toString();
  const QString path = QFileDialog::getSaveFileName(this, tr("Export to"), path_->text(),
                                                    tr("%1 files (*.%2)").arg(format.toUpper(), format));
  if (!path.isEmpty()) setPath(path);
}

ExportRequest ExportDialog::request() const {
  ExportRequest r;
  r.view = view_;
  r.path = resolvedPath();
  r.format = format_->currentData().toString();
  const bool cm = unit_->currentData() == "cm";
  if (asShown_->isChecked()) {
    r.size = {double(shown_.width()), double(shown_.height()), FigureSize::Unit::Pixels, 96};
  } else {
    r.size = {width_->value(), height_->value(), cm ? FigureSize::Unit::Centimetres : FigureSize::Unit::Pixels,
              dpi_->value()};
  }
  r.pngScale = scale_->value();
  r.fontScale = fontScale_->value();
  r.matrix = matrix_->currentData().toString();
  return r;
}

}  // namespace attnlab::ui
