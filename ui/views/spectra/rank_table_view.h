#pragma once
// Rank of every head: a layers × heads table of numerical rank, effective rank and mean row entropy
// of the attention matrices, coloured by the chosen measure. Click a cell to select that head.
// Computed on a BackgroundJob (one SVD per head, with progress); on demand above
// SpectrumView::kOnDemandTokens tokens.
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <vector>

#include "core/spectra/head_spectrum.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

/// The painted table itself (no item views: 144 heads of GPT-2 small paint in one pass).
class RankGrid : public QWidget {
  Q_OBJECT
 public:
  enum class Measure { NumericalRank, EffectiveRank, Entropy };
  explicit RankGrid(QWidget* parent = nullptr);
  void setTable(const HeadRankTable& table, int selectedLayer, int selectedHead);
  void setMeasure(Measure m);
  void setFontScale(double scale);
  void setMessage(const QString& text);
  /// Cell under a widget position, or false.
  bool cellAt(const QPoint& pos, int* layer, int* head) const;
  QRect cellRect(int layer, int head) const;
  const HeadRankTable& table() const { return table_; }

 signals:
  void cellClicked(int layer, int head);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  double value(const HeadRankCell& c) const;
  double maxValue() const;

  HeadRankTable table_;
  Measure measure_ = Measure::EffectiveRank;
  int selLayer_ = -1, selHead_ = -1;
  double fontScale_ = 1.0;
  QString message_;
};

/// The colour scale of the grid: a horizontal viridis gradient from 0 to the measure's fixed top
/// (n, or log n for entropy) with numbered ticks and the measure's name. Painted, so it is part of
/// exported figures.
class RankColorBar : public QWidget {
  Q_OBJECT
 public:
  explicit RankColorBar(QWidget* parent = nullptr);
  /// `top` is the value at the right end; ticks at round steps from 0, plus `top` itself.
  void setScale(double top, bool integerTicks, const QString& name);
  void setFontScale(double scale);
  /// The tick values drawn (0 first, top last).
  std::vector<double> ticks() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return sizeHint(); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRect barRect() const;

  double top_ = 1;
  bool integerTicks_ = true;
  QString name_;
  double fontScale_ = 1.0;
};

class RankTableView : public TraceView {
  Q_OBJECT
 public:
  explicit RankTableView(QWidget* parent = nullptr);
  QString viewName() const override { return "rank-table"; }
  QString displayName() const override { return tr("Head ranks"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  RankGrid* grid() const { return grid_; }
  RankColorBar* colorBar() const { return colorBar_; }
  QLabel* titleLabel() const { return title_; }

 public slots:
  void compute();

 private:
  /// Title and colour bar for the current measure and token count.
  void updateScale();

  RankGrid* grid_;
  RankColorBar* colorBar_;
  QComboBox* measure_;
  QLabel *title_, *legend_;
  QPushButton* computeButton_;
  QProgressBar* progress_;
  BackgroundJob* job_;
  void dropResult() override { result_.reset(); }
  ResultPtr result_;
};

}  // namespace attnlab::ui
