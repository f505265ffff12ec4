#pragma once
// Activation patching (issue 16; DESIGN.md, Round two): a clean and a corrupted text of the same token
// length, and for each head (layers × heads) and each layer's residual stream at each position
// ((layers + 1) × n) the normalised effect of copying the clean activation into the corrupted run:
//   effect = (patched − corrupt) / (clean − corrupt) of logit(target) − logit(versus) at the last token,
// 1 = the clean run's difference fully restored, 0 = no change. Two diverging heatmaps on one scale
// symmetric about 0; click a head to select it everywhere. The maps can be asked for alone (heads only, positions
// only) or as head × position ([layers·heads, n]), with progress and the time left. The heads switched off
// (Params::prediction.ablate) stay off in the clean, the corrupted and every patched run, and the view says so; a
// clean − corrupt below kMinPatchingSpan gets a warning.
// The inputs live in Params::prediction (clean, corrupt, patchTarget, patchVersus) and are independent of
// the sentence: the map (layers·heads + (layers + 1)·n forward passes, on a BackgroundJob with progress and
// cancel) is recomputed only when the model or those four fields change, or on Run. Models without an
// unembedding get a message.
#include <QLabel>
#include <memory>

#include "core/predict/patching.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/trace_view.h"
#include "ui/views/prediction/patching_controls.h"

namespace attnlab::ui {

class MatrixPlot;

class PatchingView : public TraceView {
  Q_OBJECT
 public:
  explicit PatchingView(QWidget* parent = nullptr);
  QString viewName() const override { return "patching"; }
  QString displayName() const override { return tr("Activation patching"); }
  void showResult(const ResultPtr& result) override;
  void setFontScale(double scale) override;
  ViewNumbers numbers(const ComputeResult& result) const override;

  PatchingControls* controls() const { return controls_; }
  MatrixPlot* headsPlot() const { return heads_; }
  MatrixPlot* residPlot() const { return resid_; }
  /// The view-wide message (a model without an unembedding); empty when the maps are shown.
  QString message() const { return message_->isVisible() ? message_->text() : QString(); }
  /// How many maps were started (tests: the map does not follow the sentence).
  int runsStarted() const { return runsStarted_; }

  static PatchingInputs inputsOf(const Params& p);
  /// The summary line (differences, ablations in force, the warning).
  QString summary() const;

 private:
  /// What one map is computed from: the inputs, the maps asked for, the ablations in force.
  struct Request {
    PatchingInputs in;
    PatchMap map = PatchMap::All;
    std::vector<HeadRef> ablate;
    AblationMode mode = AblationMode::Zero;
    /// Resample ablation with heads ablated: the text whose run gives their outputs (empty otherwise).
    std::string resampleText;
    /// Same inputs and ablations (the map may differ: numbers() exports whatever maps were made).
    bool sameInputs(const Request& o) const {
      return in == o.in && ablate == o.ablate && mode == o.mode && resampleText == o.resampleText;
    }
    bool operator==(const Request& o) const { return sameInputs(o) && map == o.map; }
  };
  Request requestOf(const Params& p) const;
  /// The inputs resolved against the model; check() throws InputError with the user's message.
  struct Checked {
    TokenizedText clean, corrupt;
    int target = 0, versus = 0;
  };
  static Checked check(const Model& model, const PatchingInputs& in);
  /// A finished map and what it was computed from.
  struct Computed {
    PatchingResult map;
    Request in;
    std::weak_ptr<const Model> model;
    QStringList tokens, rawTokens;  ///< the corrupted text's tokens: as shown, and as the vocabulary spells them
    QString target, versus;
    QString modelName;
  };

  void start(const Request& in);
  void draw(const Computed& c);
  void runRequested();
  void recheck();
  /// The cost hint for the corrupted text `corrupt` on the shown model.
  void showCost(const std::string& corrupt, PatchMap map);
  void showMessage(const QString& text);
  /// Hides the maps and forgets them (their inputs no longer apply); true when there was one.
  bool clearMap();
  bool hasMap() const {
    return shown_.map.heads.size() + shown_.map.resid.size() + shown_.map.headPositions.size() > 0;
  }
  static QStringList headPositionRows(int layers, int heads);
  bool canPatch() const;

  PatchingControls* controls_;
  QLabel* headline_;
  MatrixPlot *heads_, *resid_;
  QLabel* summary_;
  QLabel* message_;
  BackgroundJob* job_;
  void dropResult() override { result_.reset(); }
  ResultPtr result_;
  /// The inputs of the newest map started (or refused): a result with the same ones starts nothing.
  Request requested_;
  std::weak_ptr<const Model> requestedModel_;
  bool hasRequested_ = false;
  Computed shown_;
  QString shownFor_;  ///< the model the last map drawn was computed with
  int runsStarted_ = 0;
};

}  // namespace attnlab::ui
