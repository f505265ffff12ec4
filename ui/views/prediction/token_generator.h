#pragma once
// "Generate" (issue 16): appends the model's next tokens to the sentence, one at a time, so every view
// follows each step. core generate() runs on a worker thread (key/value-cached; with ablated heads the
// ablated model recomputes each step) and each token reaches the GUI thread as it is made. The text to
// append is decoded statefully: a character split over two byte-level tokens waits for its second half.
#include <QObject>
#include <QStringDecoder>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/model/generate.h"
#include "core/model/intervention.h"
#include "ui/views/common/background_job.h"

namespace attnlab::ui {

class TokenGenerator : public QObject {
  Q_OBJECT
 public:
  struct Request {
    std::shared_ptr<const Model> model;
    std::vector<int> promptIds;
    std::string pieceStyle;  ///< ModelInfo::pieceStyle: how a piece becomes text
    int steps = 1;
    SamplingOptions options;
    Intervention ablation;
    /// Resample ablation: the run ablation.resample points to, kept alive while the generation runs.
    std::shared_ptr<const Trace> resampleRun;
    /// Word-level vocabularies (the trained tiny models, whose symbols are given to the words of each
    /// sentence): the words of the prompt by id, so a copied symbol appends its word, not "#37".
    std::map<int, std::string> promptWords;
  };

  explicit TokenGenerator(QObject* parent = nullptr);
  /// Starts generating (a running generation is stopped first).
  void start(const Request& request);
  void stop();
  bool running() const { return job_->busy(); }

  /// The text a piece appends: its bytes; for word-level vocabularies (no piece style) a space first unless
  /// it is punctuation.
  static std::string appendedBytes(const std::string& piece, const std::string& pieceStyle);

 signals:
  /// Token `step` of the run was made; `appended` is all the text this run has appended so far.
  void tokenMade(int step, const QString& piece, double prob, const QString& appended);
  void finished(int steps);
  void failed(const QString& message);
  /// True from start() until the run has finished, failed or been stopped.
  void runningChanged(bool running);

 private:
  BackgroundJob* job_;
  quint64 run_ = 0;  ///< tokens of a stopped run that are still queued are dropped
  QStringDecoder decoder_{QStringDecoder::Utf8};
  QString appended_;
};

}  // namespace attnlab::ui
