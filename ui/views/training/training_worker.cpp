#include "ui/views/training/training_worker.h"

namespace attnlab::ui {

TrainingWorker::TrainingWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<TrainingUpdatePtr>();
  startThread();
}

TrainingWorker::~TrainingWorker() { stopThread(); }

}  // namespace attnlab::ui
