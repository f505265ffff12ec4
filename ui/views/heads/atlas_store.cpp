#include "ui/views/heads/atlas_store.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include "core/session/params_json.h"

namespace attnlab::ui {

AtlasStore::AtlasStore(AtlasEngine engine, QObject* parent)
    : QObject(parent),
      engine_(std::move(engine)),
      probeJob_(new BackgroundJob(this)),
      scanJob_(new BackgroundJob(this)) {
  connect(probeJob_, &BackgroundJob::busyChanged, this, &AtlasStore::stateChanged);
  connect(scanJob_, &BackgroundJob::busyChanged, this, &AtlasStore::stateChanged);
  connect(probeJob_, &BackgroundJob::progress, this,
          [this](double f) { emit progress(tr("Scoring every head on the probe"), f); });
}

std::string AtlasStore::modelIdentity(const ComputeResult& r) { return r.modelIdentity(); }

AtlasStore::ProbeKey AtlasStore::probeKey(const ComputeResult& r) {
  return {modelIdentity(r), r.params.atlas.probeLength, r.params.atlas.probeSeed};
}

std::string AtlasStore::text(const ProbeKey& k) {
  return k.model + "|probe " + std::to_string(k.length) + " " + std::to_string(k.seed);
}

std::string AtlasStore::text(const ScanKey& k) {
  std::string s = "|window " + std::to_string(k.window) + " top " + std::to_string(k.top);
  for (const std::string& f : k.files) s += "|" + f;
  return s;
}

AtlasStore::ScanKey AtlasStore::scanKey(const ComputeResult& r) {
  return {r.params.atlas.corpus, r.params.atlas.window, r.params.atlas.top};
}

namespace {

/// `atlas` without its probe trace (a copy when it has one).
std::shared_ptr<const HeadAtlas> withoutTrace(std::shared_ptr<const HeadAtlas> atlas) {
  if (!atlas || !atlas->probeTrace) return atlas;
  auto copy = std::make_shared<HeadAtlas>(*atlas);
  copy->probeTrace.reset();
  return copy;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

void AtlasStore::keep(std::map<std::string, std::shared_ptr<const HeadAtlas>>& kept, const std::string& key,
                      std::shared_ptr<const HeadAtlas> atlas) const {
  kept[key] = startsWith(key, probeKey_.model + "|probe ") ? std::move(atlas) : withoutTrace(std::move(atlas));
}

void AtlasStore::dropOtherTraces(const std::string& modelIdentity) {
  for (auto* kept : {&probeAtlases_, &scanned_})
    for (auto& [key, atlas] : *kept)
      if (!startsWith(key, modelIdentity + "|probe ")) atlas = withoutTrace(atlas);
}

void AtlasStore::request(const ResultPtr& result) {
  if (!result || !result->ok() || !result->run->model) return;
  lastAsked_ = result;
  if (modelIdentity(*result) != probeKey_.model) dropOtherTraces(modelIdentity(*result));
  if (!(probeKey(*result) == probeKey_)) {
    const auto kept = probeAtlases_.find(text(probeKey(*result)));
    if (kept == probeAtlases_.end()) {
      startProbe(result);
      return;
    }
    // This model's probe atlas was built before: no new probe, and its corpus result (if any) comes from scanned_.
    probeJob_->stopEarly();
    scanJob_->stopEarly();
    ++scanRun_;
    probeKey_ = probeKey(*result);
    scanKey_ = {};
    model_ = result->run->model;
    probeAtlas_ = kept->second;
    error_.clear();
    offer_.clear();
    pendingScan_.reset();
    publish(probeAtlas_);
    if (!probeAtlas_->probeTrace && engine_.probeTrace) startRetrace();  // dropped when this model was left
    emit stateChanged();
    // Its corpus result (kept, offered or scanned) from the kept atlas now: waiting for the cancelled probe of the
    // other model parked this request, and a cancelled run delivers nothing — the Heads views stayed not ready.
    if (!(scanKey(*result) == scanKey_)) startScan(result);
    return;
  }
  model_ = result->run->model;  // the same model, maybe reloaded: jobs read the one alive
  if (probeJob_->busy()) {
    pendingScan_ = result;  // the scan starts from the probe atlas when it arrives
    return;
  }
  if (!(scanKey(*result) == scanKey_)) startScan(result);
}

void AtlasStore::forget(const ResultPtr& result) {
  if (!result || result != lastAsked_ || probeJob_->busy() || scanJob_->busy()) return;
  lastAsked_.reset();
  model_.reset();
}

bool AtlasStore::isReadyFor(const ComputeResult& result) const {
  if (!result.ok() || !result.run->model) return true;  // nothing to compute: the views show a message
  if (probeJob_->busy() || scanJob_->busy()) return false;
  if (!(probeKey(result) == probeKey_)) return false;
  return error_.size() > 0 || (atlas_ && scanKey(result) == scanKey_);
}

void AtlasStore::startProbe(const ResultPtr& result) {
  scanJob_->stopEarly();
  ++scanRun_;
  probeKey_ = probeKey(*result);
  scanKey_ = {};
  model_ = result->run->model;
  probeAtlas_.reset();
  error_.clear();
  offer_.clear();
  pendingScan_ = result;
  const std::string key = text(probeKey_);
  const std::shared_ptr<const Model> model = model_;
  AtlasOptions options{result->params.atlas.probeLength, result->params.atlas.probeSeed};
  // A probe longer than the model's context is shortened to fit, with a note (as `attnlab heads` does).
  const std::string note = fitProbeToContext(options, model->info().maxTokens);
  const auto build = engine_.build;
  probeJob_->run<std::shared_ptr<const HeadAtlas>>(
      [model, options, build, note](const RunControl& control) {
        HeadAtlas atlas = build(*model, options, control);
        if (!note.empty()) atlas.notes.push_back(note);
        return std::make_shared<const HeadAtlas>(std::move(atlas));
      },
      [this, key](const std::shared_ptr<const HeadAtlas>& atlas) {
        keep(probeAtlases_, key, atlas);
        if (key != text(probeKey_)) return;  // finished just as another model's kept atlas was taken up
        probeAtlas_ = atlas;
        publish(atlas);
        const ResultPtr next = std::move(pendingScan_);
        pendingScan_.reset();
        if (next && probeKey(*next) == probeKey_ && !next->params.atlas.corpus.empty())
          startScan(next);
        else if (next)
          scanKey_ = scanKey(*next);
      },
      [this](const QString& e) {
        error_ = e;
        pendingScan_.reset();
        atlas_.reset();
        emit atlasChanged();
        emit stateChanged();
      });
}

void AtlasStore::startScan(const ResultPtr& result) {
  scanKey_ = scanKey(*result);
  const quint64 run = ++scanRun_;
  const bool wasOffered = !offer_.isEmpty();
  offer_.clear();
  if (scanKey_.files.empty() || !probeAtlas_) {
    scanJob_->stopEarly();
    if (probeAtlas_ && atlas_ != probeAtlas_) publish(probeAtlas_);  // the corpus was removed: the probe alone
    if (wasOffered) emit stateChanged();
    return;
  }
  error_.clear();
  const std::string resultKey = text(probeKey_) + text(scanKey_);
  if (const auto kept = scanned_.find(resultKey); kept != scanned_.end()) {
    scanJob_->stopEarly();
    publish(kept->second);  // scanned (or cancelled by the user) before for this model
    emit stateChanged();
    return;
  }
  const std::string allowKey = modelIdentity(*result) + text(scanKey_);
  const auto owner = scanOwner_.find(text(scanKey_));
  if (owner == scanOwner_.end()) {
    // The first model to ask for this corpus: the user opened it on this model.
    scanOwner_[text(scanKey_)] = QString::fromStdString(result->run->info.name);
    allowed_.insert(allowKey);
  } else if (!allowed_.count(allowKey)) {
    scanJob_->stopEarly();
    offer_ = owner->second;
    if (atlas_ != probeAtlas_) publish(probeAtlas_);
    emit stateChanged();
    return;
  }
  const std::shared_ptr<const Model> model = model_;
  const std::shared_ptr<const HeadAtlas> start = probeAtlas_;
  CorpusOptions options;
  options.files = scanKey_.files;
  options.window = scanKey_.window;
  options.top = scanKey_.top;
  const auto scan = engine_.scan;
  auto finished = std::make_shared<bool>(false);  // written by the worker before its result is delivered
  scanJob_->run<std::shared_ptr<const HeadAtlas>>(
      [this, model, start, options, scan, run, finished](const RunControl& control) {
        auto atlas = std::make_shared<HeadAtlas>(*start);
        QElapsedTimer posted;  // invalid until the first post: the first window shows at once
        // A copy of the refined atlas reaches the GUI thread at most five times a second; the last state comes
        // with the job's result.
        const CorpusProgress onWindow = [this, run, &posted](const HeadAtlas& a, double fraction) {
          if (posted.isValid() && posted.elapsed() < 200) return;
          posted.start();
          auto copy = std::make_shared<const HeadAtlas>(a);
          QMetaObject::invokeMethod(
              this,
              [this, run, copy, fraction] {
                if (run != scanRun_) return;
                publish(copy);
                emit progress(tr("Reading the corpus"), fraction);
              },
              Qt::QueuedConnection);
        };
        try {
          scan(*model, options, *atlas, onWindow, control);
          *finished = true;
        } catch (const Cancelled&) {
          // What was scanned stays: the scan's contract leaves the atlas holding it.
          atlas->notes.push_back("corpus scan cancelled after " + std::to_string(atlas->corpusTokens) + " tokens");
        }
        return std::shared_ptr<const HeadAtlas>(atlas);
      },
      [this, run, finished, resultKey](const std::shared_ptr<const HeadAtlas>& atlas) {
        // Kept: a whole scan, or one the user cancelled (it must not start again). A scan stopped because another
        // model came is not: coming back scans again.
        if (*finished || run == userCancelled_) keep(scanned_, resultKey, atlas);
        if (run == scanRun_) publish(atlas);  // else: a new model or probe came meanwhile
      },
      [this, run](const QString& e) {
        if (run != scanRun_) return;
        error_ = e;
        emit stateChanged();
      });
}

void AtlasStore::startRetrace() {
  const std::string key = text(probeKey_);
  const std::shared_ptr<const Model> model = model_;
  const AtlasProbe probe = probeAtlas_->probe;
  const auto forward = engine_.probeTrace;
  probeJob_->run<std::shared_ptr<const Trace>>(
      [model, probe, forward](const RunControl& control) { return forward(*model, probe, control); },
      [this, key](const std::shared_ptr<const Trace>& trace) {
        if (key != text(probeKey_) || !probeAtlas_) return;  // another model came meanwhile
        auto atlas = std::make_shared<HeadAtlas>(*probeAtlas_);
        atlas->probeTrace = trace;
        probeAtlas_ = atlas;
        probeAtlases_[key] = atlas;
        publish(atlas_);  // the atlas shown (the probe's or a corpus result) gets the trace back
        const ResultPtr next = std::move(pendingScan_);
        pendingScan_.reset();
        if (next && probeKey(*next) == probeKey_ && !(scanKey(*next) == scanKey_)) startScan(next);
      },
      [this](const QString&) {
        pendingScan_.reset();  // the thumbnails stay empty; the scores are there
        emit stateChanged();
      });
}

void AtlasStore::cancelScan() {
  if (scanJob_->busy()) userCancelled_ = scanRun_;
  scanJob_->stopEarly();
}

void AtlasStore::scanForThisModel() {
  if (offer_.isEmpty() || !lastAsked_) return;
  allowed_.insert(modelIdentity(*lastAsked_) + text(scanKey(*lastAsked_)));
  scanKey_ = {};
  request(lastAsked_);
}

void AtlasStore::publish(std::shared_ptr<const HeadAtlas> atlas) {
  // A corpus result kept without its trace, or a scan started before the trace came back: the current probe's trace.
  if (atlas && !atlas->probeTrace && probeAtlas_ && probeAtlas_->probeTrace && atlas->layers == probeAtlas_->layers &&
      atlas->heads == probeAtlas_->heads) {
    auto copy = std::make_shared<HeadAtlas>(*atlas);
    copy->probeTrace = probeAtlas_->probeTrace;
    atlas = std::move(copy);
  }
  atlas_ = std::move(atlas);
  emit atlasChanged();
}

void AtlasStore::waitForIdle() {
  // A finished probe starts the scan from its result handler (a queued event): rounds.
  for (int round = 0; round < 6; ++round) {
    probeJob_->waitForIdle();
    scanJob_->waitForIdle();
    QCoreApplication::processEvents();
  }
}

}  // namespace attnlab::ui
