#pragma once
// The controls both Training pages (TrainingView, EncDecTrainingPanel) build alike: the bold headline over the
// plots, the d_model choice, the learning-rate, seed and step-limit boxes, and the column of controls at the left
// (form, buttons, status line), which a figure of the page leaves out.
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QFormLayout;
class QGridLayout;
class QLabel;
class QSpinBox;
class QWidget;

namespace attnlab::ui {

/// A word-wrapped label in bold, 1.2 × the font: what the page shows now, in a sentence.
QLabel* makeHeadline();
/// d_model: 16, 32, 64 or 128 (the item data), `value` selected.
QComboBox* makeDModelBox(int value);
/// Adam's learning rate, 0.0001 to 0.1, four decimals.
QDoubleSpinBox* makeLearningRateBox(double value, double singleStep);
QSpinBox* makeSeedBox(int value);
/// "Stop at step": 1 to 1,000,000.
QSpinBox* makeStepLimitBox(int value);
/// The page's left column: `form`, `buttons`, then `status` (word-wrapped), as wide as its fields at every font size
/// and screen-only (kScreenOnlyProperty).
QWidget* makeControlsColumn(QFormLayout* form, QGridLayout* buttons, QLabel* status);
/// Lays `page` out as the Training pages are: `controls` at the left; at the right `headline` over `plots`.
void layOutTrainingPage(QWidget* page, QWidget* controls, QLabel* headline, QWidget* plots);
/// The axis titles and tick labels of `plot` at `scale` × the default font, replotted.
void setPlotFontScale(QCustomPlot* plot, double scale);
/// The threads a page trains on: all but one core, so the window keeps its frame rate.
int trainingThreads();

}  // namespace attnlab::ui
