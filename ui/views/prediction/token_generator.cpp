#include "ui/views/prediction/token_generator.h"

#include <cctype>

#include "core/text/token_display.h"

namespace attnlab::ui {

TokenGenerator::TokenGenerator(QObject* parent) : QObject(parent), job_(new BackgroundJob(this)) {
  connect(job_, &BackgroundJob::busyChanged, this, &TokenGenerator::runningChanged);
}

std::string TokenGenerator::appendedBytes(const std::string& piece, const std::string& pieceStyle) {
  if (pieceStyle == "byte-level") return tokenBytes(piece, TokenDisplayStyle::ByteLevel);
  if (pieceStyle == "metaspace") return tokenBytes(piece, TokenDisplayStyle::Metaspace);
  const bool punctuation = piece.size() == 1 && std::ispunct(static_cast<unsigned char>(piece[0]));
  return punctuation ? piece : " " + piece;
}

void TokenGenerator::start(const Request& request) {
  stop();
  const quint64 run = ++run_;
  decoder_.resetState();
  appended_.clear();
  const Request r = request;
  job_->run<int>(
      [this, r, run](const RunControl& control) {
        const auto onToken = [this, r, run](const GeneratedToken& t) {
          const auto word = r.promptWords.find(t.id);
          const std::string bytes = appendedBytes(word != r.promptWords.end() ? word->second : t.piece, r.pieceStyle);
          QMetaObject::invokeMethod(
              this,
              [this, run, t, bytes] {
                if (run != run_) return;
                appended_ += decoder_(QByteArray::fromStdString(bytes));
                emit tokenMade(t.step, QString::fromStdString(t.piece), t.prob, appended_);
              },
              Qt::QueuedConnection);
        };
        return static_cast<int>(
            generate(*r.model, r.promptIds, r.steps, r.options, control, onToken, r.ablation).size());
      },
      [this](const int& made) { emit finished(made); }, [this](const QString& e) { emit failed(e); });
}

void TokenGenerator::stop() {
  ++run_;
  job_->cancel();
}

}  // namespace attnlab::ui
