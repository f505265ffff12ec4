#pragma once
// The next-token distribution and the logit lens (issue 16; DESIGN.md, Round two).
//   top    the k most probable next tokens at the position (the first pinned token, else the last) as
//          horizontal bars of probability, each labelled with its piece, probability and logit;
//   lens   a layers × positions grid: the probability of the top token when each layer's residual stream
//          is decoded through the final norm and the unembedding (hover a cell for its top 5); the row of
//          the position is listed beside the bars.
//   controls  temperature, top-k and top-p: bars of tokens sampling would drop are grey; Next token /
//          Generate N append the model's tokens to the sentence (token_generator.h);
//   ablation  with heads switched off (the attribution map, the model view), a line compares the target's
//          probability with the plain model's and gives KL(plain ‖ ablated) at the position, and offers the
//          other modes: zero, the mean over positions, or resample — the heads' outputs on another text, typed in
//          the field below the line (resample_field.h).
// Both run on a BackgroundJob: the lens decodes (layers + 1)·n rows of vocab·d multiply-adds.
// A model without an unembedding (the built-in one) gets a message instead.
#include <QLabel>

#include <optional>

#include "core/predict/prediction.h"
#include "core/predict/run_comparison.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

class QCustomPlot;
class QCPBars;

namespace attnlab::ui {

class MatrixPlot;
class PredictionControls;
class ResampleField;
class TokenGenerator;

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

  /// Appends `steps` tokens to the sentence (the Generate buttons, Ctrl+G); a message when the shown model
  /// cannot predict.
  void generate(int steps);
  /// Stops a running generation; the tokens appended so far stay.
  void stopGenerating();
  bool generating() const;
  /// A run that failed: when it asked for resample ablation, the resample field shows it with the reason.
  void showFailure(const ResultPtr& result) override;
  /// The reason shown under the resample field (empty: none, or the field hidden); for tests.
  QString resampleProblem() const;
  ResampleField* resampleField() const { return resample_; }

  /// The final stream [n, d] of the model without ablation on a text (ids), to compare ablated runs with, and its
  /// logits at `position` when known (from its readout: a toggle then multiplies no row by W_U for it).
  struct PlainRun {
    std::weak_ptr<const Model> model;
    std::vector<int> ids;
    Mat finalStream;
    int position = -1;
    Vec logits;  ///< [vocab] at `position`, or empty
  };

  struct Outcome {
    int position = 0;
    std::vector<TokenScore> top;
    std::vector<bool> kept;                          ///< per top token: kept by top-k / top-p sampling
    std::vector<LensRow> lens;                       ///< at the position, top 1 per layer
    LensGrid grid;                                   ///< filled by the second job
    std::optional<RunComparison> ablation;           ///< with heads switched off: the plain model against the ablated
    PlainRun plain;                                  ///< what `ablation` compared with (for a plain run: itself)
    std::shared_ptr<const PositionReadout> readout;  ///< what the bars and the lens column came from
  };

 private:
  void draw(const ResultPtr& result, const Outcome& o);
  void showMessage(const QString& text);
  void drawBars(const ResultPtr& r, const Outcome& o);
  /// The bars' token labels one line per bar: smaller (to 7 pt) when the bars are closer than a line, then a taller
  /// plot (the page scrolls). After each layout pass of the bars, whose height is known only then.
  void fitBarLabels();
  /// The lens grid tall enough for three rows of labels (and its colour bar's 0 and 1) at the labels' size: a
  /// 2-layer model's three rows were squeezed to 20 px in F11 and their labels overlapped.
  void fitLensHeight();
  void drawGrid(const ResultPtr& r, const LensGrid& g);
  QString lensTooltip(int row, int col) const;
  QString ablationLine(const ResultPtr& r, const Outcome& o) const;
  void showResampleField(const PredictionSettings& s, const QString& problem);
  void onTokenMade(int step, const QString& piece, double prob, const QString& appended);

  QLabel* title_;
  PredictionControls* controls_;
  QLabel* ablation_;
  ResampleField* resample_;
  QLabel* status_;
  QCustomPlot* bars_;
  double fontScale_ = 1.0;  ///< the presentation scale of the labels (setFontScale)
  QCPBars* barItem_;
  QCPBars* droppedItem_;  ///< the top tokens sampling would not keep, in grey
  QLabel* lensList_;
  MatrixPlot* lens_;
  QLabel* message_;
  BackgroundJob* job_;
  BackgroundJob* gridJob_;  ///< the lens grid, after the bars
  void dropResult() override {
    shown_.reset();
    latest_.reset();
    readout_.reset();
  }
  ResultPtr shown_;
  ResultPtr latest_;  ///< the newest result given, whose parameters edits start from
  Outcome outcome_;
  TokenGenerator* generator_;
  PlainRun plain_;  ///< the newest plain run seen (weak on the model: a closed model is not kept alive)
  /// The newest readout and its model: the next one copies the lens rows whose streams are the same (a head
  /// switched on or off in layer L leaves the rows up to L).
  std::shared_ptr<const PositionReadout> readout_;
  std::weak_ptr<const Model> readoutModel_;
  std::string generationBase_;   ///< the sentence Generate appends to
  std::string generationModel_;  ///< ComputeResult::modelIdentity of the model status_'s generation line is about
  QString generationNote_;       ///< why a generation makes fewer tokens than asked (a short resample text)
  int generationLimit_ = 0;      ///< resample ablation: the resample text's tokens, which the sentence may not exceed
};

}  // namespace attnlab::ui
