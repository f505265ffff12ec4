#pragma once
// Direct logit attribution (issue 16; DESIGN.md, Round two): for the predicted token at the position
// (the first pinned token, else the last), each head's and each MLP's direct contribution to its logit,
// with the final norm frozen at the position's scale, as a layers × (heads + MLP) heatmap. The title
// states the sum: heads + MLPs + embeddings + biases = the logit. Click a head to select it everywhere;
// Ctrl+click switches it off (ablation, params.prediction.ablate; crossed out on the map). The target can be
// any token (default: the prediction), and a second one makes it logit(target) − logit(versus). With heads switched
// off, the default target stays the prediction of the run without them (frozen when the ablation is made, and
// named under the map): before and after an ablation are then about the same token.
// Models with Gemma 2/3 sandwich norms, and models that cannot patch heads, get a message.
// T5's decoder (issue 33; encdec_attribution.h): the same map with the cross-attention heads as a second block of
// columns (layers × [self heads | cross heads | FF]); Ctrl+click switches a self or a cross head off. Marian's and
// BART's decoders (post-LN) get a message.
#include <QLabel>
#include <QLineEdit>
#include <memory>

#include "core/checkpoint/encdec_attribution.h"
#include "core/predict/attribution.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"

namespace attnlab::ui {

class MatrixPlot;

class AttributionView : public TraceView {
  Q_OBJECT
 public:
  explicit AttributionView(QWidget* parent = nullptr);
  QString viewName() const override { return "attribution"; }
  QString displayName() const override { return tr("Logit attribution"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;
  /// The line under the map (the sum, and the frozen target).
  QString sumText() const { return sum_->text(); }

 private:
  /// Projected forms made from projections_ (the target's, then the run's top predictions').
  using FormsPtr = std::shared_ptr<const std::vector<ProjectedForm>>;
  /// The targets whose forms are made together: a target and the run's top predictions.
  static constexpr int kFormTargets = 10;
  struct Outcome {
    Attribution attribution;
    std::shared_ptr<const OutputProjections> projections;
    FormsPtr forms;       ///< W_O applied to the target's direction and to the top predictions', from `projections`
    int frozen = -1;      ///< the prediction without the ablations, used as the target; −1: not frozen
    int prediction = -1;  ///< the shown run's own prediction
  };
  /// The target frozen for a text: the prediction of its run without ablations.
  struct Frozen {
    std::weak_ptr<const Model> model;
    std::vector<int> ids;
    int position = -1, target = -1;
  };
  void draw(const ResultPtr& result, const Attribution& a, const Outcome& o);
  /// T5's decoder: the attribution runs in the background from the run's EncDecTrace; drawn by drawDecoder.
  void showDecoderResult(const ResultPtr& result);
  void drawDecoder(const ResultPtr& result, const DecoderAttribution& a);
  void showMessage(const QString& text);

  void editTokens();

  QLineEdit* target_;
  QLineEdit* versus_;
  MatrixPlot* plot_;
  QLabel* sum_;
  QLabel* message_;
  BackgroundJob* job_;
  Attribution shown_;
  DecoderAttribution shownDecoder_;  ///< T5's decoder (self.size() > 0 when it is what the map shows)
  bool showsDecoder() const { return shownDecoder_.self.size() > 0; }
  void dropResult() override {
    shownResult_.reset();
    projections_.reset();
  }
  ResultPtr shownResult_;
  QString title_;
  std::shared_ptr<const OutputProjections> projections_;  ///< W_O of projectionsModel_, read once
  std::weak_ptr<const Model> projectionsModel_;           ///< weak: a model the window dropped is not kept alive
  /// The last forms made from projections_: the next attribution to one of their targets (a head switched on or
  /// off, the prediction unchanged or one of the top ones) skips the pass over W_O.
  FormsPtr forms_;
  Frozen frozen_;
};

}  // namespace attnlab::ui
