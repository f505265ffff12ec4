#include "ui/views/training/encdec_training_worker.h"

namespace attnlab::ui {

EncDecSnapshot EncDecTraining::snapshot(const EncDecTrainer& t, double lastLoss) {
  EncDecSnapshot s = encDecSnapshot(t.settings(), t.params());
  s.step = t.stepCount();
  s.loss = lastLoss;
  return s;
}

EncDecTrainingWorker::EncDecTrainingWorker(QObject* parent) : QObject(parent) {
  qRegisterMetaType<EncDecTrainingUpdatePtr>();
  startThread();
}

EncDecTrainingWorker::~EncDecTrainingWorker() { stopThread(); }

}  // namespace attnlab::ui
