#include "ui/trace_view.h"

#include <QCoreApplication>

#include "ui/background_job.h"

namespace attnlab::ui {

void TraceView::waitForAnalyses() {
  for (int round = 0; round < 4; ++round) {
    for (BackgroundJob* job : findChildren<BackgroundJob*>()) job->waitForIdle();
    QCoreApplication::processEvents();
  }
}

}  // namespace attnlab::ui
