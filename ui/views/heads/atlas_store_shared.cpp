#include "ui/views/heads/atlas_store.h"

#include <QCoreApplication>

namespace attnlab::ui {

AtlasStore& AtlasStore::shared() {
  // One per program, created on first use on the GUI thread; the views and `attnlab export` share it. Owned by the
  // application, so its jobs are cancelled and joined before the model they read is gone.
  static AtlasStore* store = new AtlasStore(
      AtlasEngine{[](const Model& m, const AtlasOptions& o, const RunControl& c) { return buildProbeAtlas(m, o, c); },
                  [](const Model& m, const CorpusOptions& o, HeadAtlas& a, const CorpusProgress& p,
                     const RunControl& c) { scanCorpus(m, o, a, p, c); },
                  [](const Model& m, const AtlasProbe& p, const RunControl& c) { return probeForward(m, p, c); }},
      QCoreApplication::instance());
  return *store;
}

}  // namespace attnlab::ui
