#include "ui/shell/live_controller.h"

#include <QtConcurrent/QtConcurrent>
#include <chrono>

#include "core/base/errors.h"
#include "core/compute/heap_policy.h"
#include "core/model/trace_memory.h"
#include "core/run/encdec_run.h"
#include "core/run/model_factory.h"
#include "core/run/text_tail.h"
#include "core/session/params_json.h"

namespace attnlab::ui {
namespace {

/// Identity of the model the parameters name (not the sentence, not the selection).
std::string modelKey(const Params& p) {
  return p.modelDir + "|" + toJson(p.model).dump() + "|" + (p.lowercase ? "lc" : "cs");
}

std::string withoutSelection(const Params& p) {
  nlohmann::json j = toJson(p);
  j.erase("selection");
  j.erase("display");  // colours and theme redraw, they never recompute
  return j.dump();
}

/// A text longer than the model's positions: its length, the limit and the end that fits, for the window's "Keep the
/// last N tokens". Only on a failed run, so the text is tokenized twice only when it was refused. An encoder–decoder's
/// source is checked first, then its target (counted with the decoder's start token, which its tail keeps).
void noteTextTooLong(ComputeResult& r, const Model& model) {
  try {
    if (const auto* encdec = dynamic_cast<const EncDecFolderModel*>(&model)) {
      const int limit = encdec->model().config().maxPositions;
      if (limit <= 0) return;
      const int ns = static_cast<int>(encdec->tokenizeSource(r.params.sentence).ids.size());
      const int nt =
          static_cast<int>(encdec->tokenizeTarget(r.params.target).ids.size() + r.params.targetPending.size());
      if (ns > limit) {
        r.fittingTail = textTail(model, r.params.sentence, limit);  // tokenize() is the source's
        r.textTokens = ns;
        r.tooLongText = "source";
      } else if (nt > limit) {
        r.fittingTail = textTail(*encdec->stackModel(true), r.params.target, limit - 1);  // the start token's place
        r.textTokens = nt;
        r.tooLongText = "target";
      } else {
        return;
      }
      r.modelPositions = limit;
      return;
    }
    const int limit = model.info().maxTokens;
    const int n = static_cast<int>(model.tokenize(r.params.sentence).tokens.size());
    if (limit <= 0 || n <= limit) return;
    r.fittingTail = textTail(model, r.params.sentence, limit);
    r.textTokens = n;
    r.modelPositions = limit;
  } catch (const std::exception&) {  // no tail fits: the error alone is shown
  }
}

}  // namespace

LiveController::LiveController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ResultPtr>();
  debounce_.setSingleShot(true);
  debounce_.setInterval(30);
  connect(&debounce_, &QTimer::timeout, this, &LiveController::start);
  // One worker: a new run queues behind the running one, which its cancel flag ends early.
  pool_.setMaxThreadCount(1);
}

LiveController::~LiveController() {
  cancel();
  pool_.waitForDone();
}

void LiveController::setParams(const Params& p) {
  if (onlySelectionChanged(p)) return setParamsNow(p);
  params_ = p;
  debounce_.start();
}

void LiveController::setParamsNow(const Params& p) {
  const bool selectionOnly = onlySelectionChanged(p);
  params_ = p;
  debounce_.stop();
  if (selectionOnly && !busy()) {
    // Same model, same sentence: re-present the last trace with the new selection, no recompute.
    auto r = std::make_shared<ComputeResult>(*last_);
    r->params = p;
    r->generation = ++generation_;
    last_ = r;
    emit resultReady(last_);
    return;
  }
  start();
}

bool LiveController::onlySelectionChanged(const Params& p) const {
  return last_ && last_->ok() && withoutSelection(p) == withoutSelection(last_->params);
}

void LiveController::cancel() {
  if (cancel_) cancel_->store(true);
}

std::shared_ptr<const Model> LiveController::cachedModel(const Params& p, const RunControl& control) {
  std::lock_guard<std::mutex> lock(cacheMutex_);
  const std::string key = modelKey(p);
  if (key != cacheKey_ || !cache_) {
    cache_.reset();  // free the old weights before building the new ones
    cacheKey_.clear();
    cache_ = makeModel(p, control);
    cacheKey_ = key;
  }
  return cache_;
}

ResultPtr LiveController::compute(const Params& p, std::shared_ptr<const Model> model, const RunControl& control,
                                  std::shared_ptr<const PipelineResult> previous) {
  auto r = std::make_shared<ComputeResult>();
  r->params = p;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r->run = std::make_shared<const PipelineResult>(runPipeline(p, model, control, std::move(previous)));
  } catch (const Cancelled&) {
    r->cancelled = true;
  } catch (const std::exception& e) {  // InputError, bad_alloc: shown, never fatal
    r->error = QString::fromUtf8(e.what());
    if (model && p.keepLastTokens == 0) noteTextTooLong(*r, *model);
  }
  r->forwardMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void LiveController::start() {
  cancel();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  const quint64 gen = ++generation_;
  const Params p = params_;
  auto flag = cancel_;
  // The last run lends its rows to an edit of the same model's text; another model's is not kept alive by this run.
  std::shared_ptr<const PipelineResult> previous =
      last_ && last_->ok() && modelKey(last_->params) == modelKey(p) ? last_->run : nullptr;
  if (running_++ == 0) emit busyChanged(true);
  QtConcurrent::run(&pool_, [this, p, flag, gen, previous]() -> ResultPtr {
    RunControl control;
    control.cancel = flag.get();
    control.progress = [this](double f) {
      QMetaObject::invokeMethod(
          this, [this, f] { emit progress(f); }, Qt::QueuedConnection);
    };
    std::shared_ptr<const Model> model;
    try {
      model = cachedModel(p, control);
    } catch (const std::exception& e) {  // Cancelled, InputError, bad_alloc
      auto r = std::make_shared<ComputeResult>();
      r->params = p;
      r->cancelled = dynamic_cast<const Cancelled*>(&e) != nullptr;
      r->error = QString::fromUtf8(e.what());
      r->generation = gen;
      return r;
    }
    auto r = std::const_pointer_cast<ComputeResult>(compute(p, model, control, previous));
    r->generation = gen;
    return r;
  }).then(this, [this](const ResultPtr& r) { finished(r); });
}

void LiveController::finished(const ResultPtr& result) {
  if (--running_ == 0) emit busyChanged(false);
  if (result->generation != generation_) return;  // a newer edit superseded this run
  if (result->cancelled) return;
  // Memory given back (issue 31): after another model's first result, or a result much smaller than a large one
  // before it, the freed traces' pages go back to the system once the views have let the old result go.
  const auto bytesOf = [](const ResultPtr& r) { return r && r->ok() ? traceBytes(r->run->trace) : 0.0; };
  if (result->ok() && last_ && last_->ok() &&
      (modelKey(last_->params) != modelKey(result->params) ||
       (bytesOf(last_) >= kReturnMemoryAfterBytes && bytesOf(result) < bytesOf(last_) / 4)))
    memoryToReturn_ = true;
  if (result->ok()) last_ = result;
  emit resultReady(result);
  returnFreedMemoryIfDue(false);
}

void LiveController::returnFreedMemoryIfDue(bool lastHolderGone) {
  if (!memoryToReturn_) return;
  returnFreedMemory();
  if (lastHolderGone) memoryToReturn_ = false;
}

}  // namespace attnlab::ui
