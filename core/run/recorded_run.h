#pragma once
// A run recorded elsewhere shown instead of computed (issue 34): attnlab.show / attnlab.figure from Python hand the
// program a run file (core/model/run_file.h) of a run that hooks changed, with `attnlab --run FILE SESSION` or
// `attnlab export --run FILE`. makeModel wraps the session's model in a RecordedRunModel when the file was made by that
// model: its forward() returns the recorded trace for the recorded token ids without an intervention, and runs the
// model otherwise (an edited text, an ablation) — never mixing the recorded run into a live one.
#include <memory>
#include <string>

#include "core/model/run_file.h"
#include "core/session/params.h"

namespace attnlab {

struct PipelineResult;

/// The run file this process shows (`--run FILE`), or why it cannot: a file that does not read is kept as its
/// message, and every run is then live.
struct RecordedRun {
  std::string path;
  std::shared_ptr<const RunFile> file;  ///< null when the file did not read
  std::string problem;                  ///< why not, when file is null
};

/// Reads `path` for the process's models (makeModel). Returns the message of a file that does not read ("" when it
/// reads); the window then runs live and says so.
std::string setRecordedRun(const std::string& path);
/// No recorded run (tests).
void clearRecordedRun();
/// The process's recorded run, null when none was set.
std::shared_ptr<const RecordedRun> recordedRun();

/// Why the recorded run is not of the model `p` names and `m` is ("" when it is): another folder, another built-in
/// config, other sizes.
std::string recordedRunMismatch(const RunFileModel& recorded, const Params& p, const Model& m);

class RecordedRunModel : public Model {
 public:
  RecordedRunModel(std::shared_ptr<const Model> inner, std::shared_ptr<const RunFile> run, std::string path);
  /// Whether `t` is the recorded trace (the same tokens and, bit for bit, the same final stream).
  bool isRecorded(const Trace& t) const;
  const std::vector<int>& recordedIds() const { return run_->trace.tokenIds; }
  const std::string& path() const { return path_; }
  const Model& inner() const { return *inner_; }

  ModelInfo info() const override { return inner_->info(); }
  TokenizedText tokenize(const std::string& text) const override { return inner_->tokenize(text); }
  Trace forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const override;
  std::vector<Vec> lastRowsWith(const TokenizedText& text, const Trace& base,
                                const std::vector<Intervention>& ivs) const override;
  std::vector<Mat> rowsWith(const TokenizedText& text, const Trace& base, const std::vector<Intervention>& ivs,
                            const std::vector<int>& rows) const override;
  const Unembedding* unembedding() const override { return inner_->unembedding(); }
  int maskTokenId() const override { return inner_->maskTokenId(); }
  std::string vocabularyPiece(int id) const override { return inner_->vocabularyPiece(id); }
  int vocabularyId(const std::string& piece) const override { return inner_->vocabularyId(piece); }
  std::unique_ptr<DecodeSession> startDecoding(const std::vector<int>& ids, const RunControl& c) const override {
    return inner_->startDecoding(ids, c);
  }
  int vocabularySize() const override { return inner_->vocabularySize(); }
  bool isReservedToken(int id) const override { return inner_->isReservedToken(id); }
  UnembeddingView tokenEmbeddings() const override { return inner_->tokenEmbeddings(); }
  bool ovCircuitWeights(int layer, Mat& wv, Mat& wo) const override { return inner_->ovCircuitWeights(layer, wv, wo); }
  Mat attentionOutput(int layer, const Mat& concat) const override { return inner_->attentionOutput(layer, concat); }

 private:
  bool matches(const TokenizedText& text) const;
  std::shared_ptr<const Model> inner_;
  std::shared_ptr<const RunFile> run_;
  std::string path_;
};

/// `model` wrapped in a RecordedRunModel when the process has a recorded run of the model `p` names; else `model`.
std::shared_ptr<const Model> withRecordedRun(std::shared_ptr<const Model> model, const Params& p);

/// What the window says about a result while a run file was given: "" without one; that the result is the hooked run
/// from Python; or why it is a live run (the file's problem, another model, an edited text). `p`: the result's
/// parameters.
std::string recordedRunNote(const PipelineResult& r, const Params& p);

}  // namespace attnlab
