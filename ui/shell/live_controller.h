#pragma once
// The live loop of DESIGN.md: an edit restarts a short single-shot timer (debounce); when it fires
// the parameters are snapshot, the generation counter bumped and the core run on a worker thread.
// Results of a stale generation are dropped; a newer edit raises the running job's cancel flag, which
// the core checks between layers. The GUI thread never computes a forward pass.
#include <QObject>
#include <QThreadPool>
#include <QTimer>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/session/params.h"
#include "ui/views/common/compute_result.h"

namespace attnlab::ui {

class LiveController : public QObject {
  Q_OBJECT
 public:
  explicit LiveController(QObject* parent = nullptr);
  ~LiveController() override;

  const Params& params() const { return params_; }
  ResultPtr lastResult() const { return last_; }
  bool busy() const { return running_ > 0; }
  quint64 generation() const { return generation_; }

  /// Debounced: the run starts after `debounceMs` without a further edit.
  void setParams(const Params& p);
  /// Starts at once (loading a session, a click on a head).
  void setParamsNow(const Params& p);
  void setDebounceMs(int ms) { debounce_.setInterval(ms); }
  /// Raises the running job's cancel flag; its result is dropped.
  void cancel();
  /// After a result of another model, or one much smaller than a large trace before it (≥ kReturnMemoryAfterBytes),
  /// freed heap pages are returned to the system (returnFreedMemory, heap_policy.h): once when the result arrives, and
  /// again at each call here while views still let old results go (the window calls it when it presents the result
  /// to a page shown late; `lastHolderGone`: every page has the new result now, the last call). Not after an edit of
  /// the same text: its next run would only fault the same pages in again.
  void returnFreedMemoryIfDue(bool lastHolderGone);
  static constexpr double kReturnMemoryAfterBytes = 256.0 * (1 << 20);

  /// The synchronous computation the worker runs: cached model, tokens, trace. Public so the command
  /// line and the benchmarks measure exactly what the GUI runs. `previous` lends the layers an ablation toggle leaves
  /// unchanged (runPipeline).
  static ResultPtr compute(const Params& p, std::shared_ptr<const Model> model, const RunControl& control,
                           std::shared_ptr<const PipelineResult> previous = nullptr);

 signals:
  void resultReady(const attnlab::ui::ResultPtr& result);
  void busyChanged(bool busy);
  void progress(double fraction);

 private:
  void start();
  void finished(const ResultPtr& result);
  bool onlySelectionChanged(const Params& p) const;
  std::shared_ptr<const Model> cachedModel(const Params& p, const RunControl& control);

  Params params_;
  ResultPtr last_;
  QTimer debounce_;
  QThreadPool pool_;
  quint64 generation_ = 0;
  int running_ = 0;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::mutex cacheMutex_;
  std::string cacheKey_;
  std::shared_ptr<const Model> cache_;
  bool memoryToReturn_ = false;
};

}  // namespace attnlab::ui
