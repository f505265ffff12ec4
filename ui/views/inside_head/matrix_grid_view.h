#pragma once
// A view made of several MatrixPlots in a grid, rebuilt when the number of panels changes. Head
// outputs and Q/K/V share it; each subclass says which matrices to show.
#include <QGridLayout>
#include <QLabel>
#include <vector>

#include "ui/plots/matrix_plot.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

class MatrixGridView : public TraceView {
  Q_OBJECT
 public:
  explicit MatrixGridView(QWidget* parent = nullptr);
  void setFontScale(double scale) override;
  /// The panels last shown, one matrix each (named by Panel::name, else by position).
  ViewNumbers numbers(const ComputeResult& result) const override;
  bool drawsCross() const override { return true; }
  const std::vector<MatrixPlot*>& plots() const { return plots_; }

 protected:
  struct Panel {
    QString title;
    Mat matrix;
    QStringList rowLabels, colLabels;
    MatrixPlot::Range range = MatrixPlot::Range::Symmetric;
    ColorMap map = ColorMap::Diverging;
    std::string name;        ///< identifier in exported numbers; empty: "panel<i>"
    bool tokenCols = false;  ///< columns are tokens too (scores); rows always are
  };
  /// Shows the panels in a grid with `columns` equally wide columns; with `lastSpansRow` the last
  /// panel takes a whole row of its own (a wide matrix such as the unified output).
  void showPanels(const std::vector<Panel>& panels, int columns, bool lastSpansRow = false);
  static QStringList indexLabels(int n, const QString& prefix);
  /// After showPanels: the pinned tokens' rows outlined, the hovered one banded; a click on a row
  /// label pins.
  void markTokens(const ResultPtr& result);
  /// After showPanels: `text` in the grid's place (row, col), e.g. why a panel is missing; the next showPanels
  /// removes it.
  void showNote(const QString& text, int row, int col);

 public:
  /// The note shown with the panels (empty: none).
  QString note() const;

 protected:
  void onHoverChanged(int token) override;

 private:
  QGridLayout* grid_;
  QLabel* note_ = nullptr;
  std::vector<MatrixPlot*> plots_;
  std::vector<Panel> shown_;  ///< what the plots draw, for numbers()
  double fontScale_ = 1.0;
  void dropResult() override { result_.reset(); }
  ResultPtr result_;
  std::vector<int> pins_;
  bool crossShown_ = false;  ///< an encoder–decoder's cross stack: rows are two texts' tokens, nothing pins
};

/// Each head's output vectors (n × d_head) and the unified output after Wo (n × d).
class HeadOutputsView : public MatrixGridView {
  Q_OBJECT
 public:
  using MatrixGridView::MatrixGridView;
  QString viewName() const override { return "outputs"; }
  QString displayName() const override { return tr("Head outputs"); }
  void showResult(const ResultPtr& result) override;

 private:
  /// The cross stack (selection.stack "cross"): each cross head's output [n_tgt × d_head] and the layer's [n_tgt × d].
  void showCross(const ResultPtr& result);
};

/// Q, K, V (n × d_head) and the pre-softmax scores (n × n) of the selected head.
class QkvView : public MatrixGridView {
  Q_OBJECT
 public:
  using MatrixGridView::MatrixGridView;
  QString viewName() const override { return "qkv"; }
  QString displayName() const override { return tr("Q, K, V, scores"); }
  void showResult(const ResultPtr& result) override;
  /// The cross stack: Q from the decoder [n_tgt × d_head], K and V from the encoder [n_src × d_head], scores
  /// [n_tgt × n_src].
  void showCross(const ResultPtr& result);
  /// Longest text whose scores get a panel (the heatmap draws longer maps from its pyramid).
  static constexpr int kMaxScoresTokens = 2048;
};

}  // namespace attnlab::ui
