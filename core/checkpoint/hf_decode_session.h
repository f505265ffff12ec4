#pragma once
// What GPT-2's and the decoder families' key/value-cached sessions share (core/model/decode_session.h): one
// KvCache per layer, the room and vocabulary checks, and append = check, run the row, decode its logits.
// A subclass gives run() (the layers of its family) and calls start() at the end of its constructor.
#include <string>
#include <vector>

#include "core/checkpoint/hf_model.h"
#include "core/model/decode_session.h"

namespace attnlab {

class HfDecodeSession : public DecodeSession {
 public:
  Vec append(int id) override;
  int tokenCount() const override { return static_cast<int>(caches_.front().rows); }
  int maxTokens() const override { return model_.config().maxPositions; }
  void checkRoom(int more) const override;

 protected:
  explicit HfDecodeSession(const HfModel& model);
  /// Checks and reads the prompt in one pass (a subclass's constructor calls it last: run() is virtual).
  void start(const std::vector<int>& promptIds, const RunControl& control);
  /// Runs the rows of `ids` at the next positions through every layer, filling the caches; returns the
  /// stream after the last layer [m, d].
  virtual Mat run(const std::vector<int>& ids, const RunControl& control) = 0;
  /// Added to the message when the sequence would outgrow the model's positions ("" by default).
  virtual std::string roomNote() const { return {}; }

  std::vector<KvCache> caches_;  ///< one per layer

 private:
  /// Throws InputError unless every id is in the vocabulary and the cache has room for them all.
  void check(const std::vector<int>& ids) const;

  const HfModel& model_;
};

}  // namespace attnlab
