#pragma once
// An encoder–decoder's cross-attention (issue 33): how each target token (a decoder query) reads the source tokens
// (the encoder's keys). Two drawings of the same [n_tgt × n_src] map: a heatmap (target rows, source columns, token
// labels on both axes) and an alignment (target tokens on the left, source tokens on the right, one line per pair,
// its opacity and width the weight: the head view's idea for two sentences). The map is the selected layer/head's, or
// the mean over the layer's heads, or over every head of every decoder layer. Other models get a note.
#include <QWidget>

#include "ui/views/common/trace_view.h"

class QComboBox;
class QLabel;
class QStackedWidget;

namespace attnlab::ui {

class MatrixPlot;

/// The alignment drawing: target tokens down the left, source tokens down the right, a line between every pair whose
/// weight is at least kMinWeight, alpha and width growing with the weight.
class AlignmentCanvas : public QWidget {
  Q_OBJECT
 public:
  static constexpr double kMinWeight = 0.02;
  explicit AlignmentCanvas(QWidget* parent = nullptr);
  /// `map` [targets.size(), sources.size()], rows summing to 1.
  void setData(const Mat& map, const QStringList& targets, const QStringList& sources);
  void setFontScale(double scale);
  int linesDrawn() const { return linesDrawn_; }
  QSize minimumSizeHint() const override { return {240, 120}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  Mat map_;
  QStringList targets_, sources_;
  double fontScale_ = 1.0;
  int linesDrawn_ = 0;
};

class CrossAttentionView : public TraceView {
  Q_OBJECT
 public:
  enum class Average { Head, Layer, All };
  explicit CrossAttentionView(QWidget* parent = nullptr);
  QString viewName() const override { return "cross"; }
  QString displayName() const override { return tr("Cross-attention"); }
  void showResult(const ResultPtr& result) override;
  /// The built-in rung 7's refused run (an empty target): its message in place of the map.
  void showFailure(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;
  bool drawsCross() const override { return true; }

  MatrixPlot* plot() const { return plot_; }
  AlignmentCanvas* alignment() const { return canvas_; }
  QComboBox* drawingChoice() const { return drawing_; }
  QComboBox* averageChoice() const { return average_; }
  QLabel* note() const { return note_; }
  /// The map drawn for `result` [n_tgt, n_src] (empty for other models), with its title.
  Mat shownMap(const ComputeResult& result, QString* title = nullptr) const;

 private:
  void redraw();

  void dropResult() override { result_.reset(); }
  ResultPtr result_;
  QComboBox* drawing_;
  QComboBox* average_;
  QLabel* title_;
  QLabel* note_;
  QStackedWidget* stack_;
  MatrixPlot* plot_;
  AlignmentCanvas* canvas_;
};

}  // namespace attnlab::ui
