#include "core/checkpoint/hf_decode_session.h"

#include "core/base/errors.h"

namespace attnlab {

HfDecodeSession::HfDecodeSession(const HfModel& model)
    : caches_(static_cast<std::size_t>(model.config().layers)), model_(model) {}

void HfDecodeSession::start(const std::vector<int>& promptIds, const RunControl& control) {
  if (promptIds.empty()) throw InputError("generation needs a prompt of at least one token");
  check(promptIds);
  const Mat h = run(promptIds, control);
  logits_ = nextTokenLogits(*model_.unembedding(), h.bottomRows(1));
}

void HfDecodeSession::checkRoom(int more) const {
  const int positions = model_.config().maxPositions;
  const long long total = static_cast<long long>(tokenCount()) + more;
  if (total > positions)
    throw InputError("the sequence would be " + std::to_string(total) + " tokens; " + model_.name() + " has " +
                     std::to_string(positions) + " positions" + roomNote());
}

void HfDecodeSession::check(const std::vector<int>& ids) const {
  checkRoom(static_cast<int>(ids.size()));
  checkTokenIds(ids, model_.config().vocabSize);
}

Vec HfDecodeSession::append(int id) {
  check({id});
  const Mat h = run({id}, {});
  logits_ = nextTokenLogits(*model_.unembedding(), h);
  return logits_;
}

}  // namespace attnlab
