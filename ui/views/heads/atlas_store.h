#pragma once
// The one place the head atlas is computed (issue 17): the three Heads views observe one AtlasStore, so a model's
// probe atlas is built once, in the background, when the model or the probe settings change, and the corpus is
// scanned once when params.atlas.corpus (or its window / top) changes. The scan posts its refined atlas to the GUI
// thread as it goes (at most every 200 ms), so the views refine while it runs. The engine (buildProbeAtlas,
// scanCorpus) is injected, so the views' tests run on atlases filled by hand.
//
// Results are kept per model (issue 31): probe atlases and scanned atlases are keyed by the model's identity (its
// folder, configuration and case folding — not the Model object, which a reload replaces) and, for scans, the corpus
// files, window and top. A corpus scan (about an hour at real size) starts by itself only for the first model that
// asks for that corpus; another model gets an offer (scanOffer(): "corpus scanned for <model>") until
// scanForThisModel() is called. A scan the user cancels is kept as it stands (its note says so): coming back to it
// never starts it again. What is kept is small (scores, similarities, contexts): the probe's trace (every head's map of
// the probe, HeadAtlas::probeTrace) is dropped from every kept atlas when another model is asked for, and run again
// (one forward pass, not the scoring) when its model comes back (issue 31: traces go with their model).
#include <QObject>
#include <QString>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/atlas/atlas_builder.h"
#include "core/atlas/corpus_scan.h"
#include "ui/views/common/background_job.h"
#include "ui/views/common/compute_result.h"

namespace attnlab::ui {

struct AtlasEngine {
  std::function<HeadAtlas(const Model&, const AtlasOptions&, const RunControl&)> build;
  std::function<void(const Model&, const CorpusOptions&, HeadAtlas&, const CorpusProgress&, const RunControl&)> scan;
  /// The probe's forward pass again (probeForward), for a kept atlas whose trace was dropped; none: it stays without.
  std::function<std::shared_ptr<const Trace>(const Model&, const AtlasProbe&, const RunControl&)> probeTrace;
};

class AtlasStore : public QObject {
  Q_OBJECT
 public:
  explicit AtlasStore(AtlasEngine engine, QObject* parent = nullptr);
  /// The program's store, on buildProbeAtlas and scanCorpus (atlas_store_shared.cpp).
  static AtlasStore& shared();

  /// Starts what `result`'s model and params.atlas need and is not computed or running yet; a no-op otherwise.
  void request(const ResultPtr& result);
  /// The atlas so far (probe only, or refined by the corpus scan); null before the first one.
  std::shared_ptr<const HeadAtlas> atlas() const { return atlas_; }
  /// True when the atlas shown is the one `result` asks for and nothing for it is still running.
  bool isReadyFor(const ComputeResult& result) const;
  bool probeBusy() const { return probeJob_->busy(); }
  bool scanBusy() const { return scanJob_->busy(); }
  /// The last failure (a probe longer than the context, a corpus without text), empty when none.
  QString error() const { return error_; }
  /// The user's Cancel: the scan stops, and what it read so far is this model's result for the corpus.
  void cancelScan();
  /// The name of the model the asked-for corpus was scanned for when this model's own scan is waiting for the user
  /// (scanForThisModel), else empty.
  QString scanOffer() const { return offer_; }
  /// Starts the offered scan for the model last asked for.
  void scanForThisModel();
  /// A hidden Heads page let `result` go (issue 31): when it is the result last asked for and nothing runs, the
  /// store lets it and its model go too (the next request brings both back). The atlases kept per model stay.
  void forget(const ResultPtr& result);
  /// Blocks until both jobs are idle and their results delivered (export, tests).
  void waitForIdle();

 signals:
  /// A new atlas (a new model, new probe settings, or a refinement of the corpus scan).
  void atlasChanged();
  /// Work in progress: `what` says which ("Scoring heads on the probe", "Reading the corpus"), fraction 0–1.
  void progress(const QString& what, double fraction);
  /// Busy state changed (either job), or an error was set.
  void stateChanged();

 private:
  struct ProbeKey {
    std::string model;  ///< modelIdentity()
    int length = 0;
    unsigned long long seed = 0;
    bool operator==(const ProbeKey& o) const { return model == o.model && length == o.length && seed == o.seed; }
  };
  struct ScanKey {
    std::vector<std::string> files;
    int window = 0, top = 0;
    bool operator==(const ScanKey& o) const { return files == o.files && window == o.window && top == o.top; }
  };
  static ProbeKey probeKey(const ComputeResult& r);
  static ScanKey scanKey(const ComputeResult& r);
  static std::string modelIdentity(const ComputeResult& r);
  static std::string text(const ProbeKey& k);
  static std::string text(const ScanKey& k);
  void startProbe(const ResultPtr& result);
  void startScan(const ResultPtr& result);
  void publish(std::shared_ptr<const HeadAtlas> atlas);
  /// Stores `atlas` under `key` of probeAtlases_ or scanned_, without its probe trace unless it is the current model's.
  void keep(std::map<std::string, std::shared_ptr<const HeadAtlas>>& kept, const std::string& key,
            std::shared_ptr<const HeadAtlas> atlas) const;
  /// Drops the probe traces of every kept atlas of another model than `modelIdentity`.
  void dropOtherTraces(const std::string& modelIdentity);
  /// Runs the probe's forward pass again for probeAtlas_ (kept without its trace).
  void startRetrace();

  AtlasEngine engine_;
  // Stopped with stopEarly(), never cancel(): a finished probe or scan superseded before delivery is still kept
  // per model, and a scan the user cancelled delivers what it read (the kept result).
  BackgroundJob* probeJob_;
  BackgroundJob* scanJob_;
  ProbeKey probeKey_;                   ///< what probeAtlas_ is (or is being) built for
  ScanKey scanKey_;                     ///< what the last scan started was for (empty files: none)
  std::shared_ptr<const Model> model_;  ///< kept alive while a job reads it
  std::shared_ptr<const HeadAtlas> probeAtlas_, atlas_;
  ResultPtr pendingScan_;      ///< a scan asked for while the probe atlas was being built
  quint64 scanRun_ = 0;        ///< drops refinements posted by a superseded scan
  quint64 userCancelled_ = 0;  ///< the scanRun_ the user cancelled: its partial atlas is kept as the result
  QString error_;
  ResultPtr lastAsked_;  ///< the result of the last request (what scanForThisModel scans for)
  QString offer_;        ///< scanOffer()
  std::map<std::string, std::shared_ptr<const HeadAtlas>> probeAtlases_;  ///< text(ProbeKey) → probe atlas
  std::map<std::string, std::shared_ptr<const HeadAtlas>> scanned_;       ///< text(ProbeKey) + text(ScanKey) → atlas
  /// text(ScanKey) → the name of the first model scanned on it; a scan starts by itself only for that model.
  std::map<std::string, QString> scanOwner_;
  std::set<std::string> allowed_;  ///< modelIdentity + text(ScanKey): scans the user asked for (or the first)
};

}  // namespace attnlab::ui
