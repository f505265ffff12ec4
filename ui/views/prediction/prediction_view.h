#pragma once
// The next-token distribution and the logit lens (issue 16; DESIGN.md, Round two).
//   top    the k most probable next tokens at the position (the first pinned token, else the last) as
//          horizontal bars of probability, each labelled with its piece, probability and logit;
//   lens   a layers × positions grid: the probability of the top token when each layer's residual stream
//          is decoded through the final norm and the unembedding (hover a cell for its token); the row of
//          the position is listed beside the bars.
// Both run on a BackgroundJob: the lens decodes (layers + 1)·n rows of vocab·d multiply-adds.
// A model without an unembedding (the built-in one) gets a message instead.
#include <QLabel>

#include "core/predict/prediction.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

class QCustomPlot;
class QCPBars;

namespace attnlab::ui {

class MatrixPlot;

class PredictionView : public TraceView {
  Q_OBJECT
 public:
  explicit PredictionView(QWidget* parent = nullptr);
  QString viewName() const override { return "prediction"; }
  QString displayName() const override { return tr("Prediction"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;

  /// Positions the lens grid shows: the last kLensPositions tokens (and the chosen position).
  static constexpr int kLensPositions = 48;
  /// How many bars.
  static constexpr int kTop = 10;

  struct Outcome {
    int position = 0;
    std::vector<TokenScore> top;
    std::vector<LensRow> lens;  ///< at the position, top 1 per layer
    LensGrid grid;
  };

 private:
  void draw(const ResultPtr& result, const Outcome& o);
  void showMessage(const QString& text);

  QLabel* title_;
  QCustomPlot* bars_;
  QCPBars* barItem_;
  QLabel* lensList_;
  MatrixPlot* lens_;
  QLabel* message_;
  BackgroundJob* job_;
  ResultPtr shown_;
  Outcome outcome_;
};

}  // namespace attnlab::ui
