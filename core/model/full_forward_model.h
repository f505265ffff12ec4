#pragma once
// A model seen through Model's default paths only: the same weights, forward() and unembedding, but
// lastRowsWith (the patched runs of activation patching) as one full traced forward pass per run. The
// reference that the resumed runs are tested and timed against (tests/core/predict, bench/).
#include "core/model/model.h"

namespace attnlab {

class FullForwardModel : public Model {
 public:
  explicit FullForwardModel(const Model& m) : m_(m) {}
  ModelInfo info() const override { return m_.info(); }
  TokenizedText tokenize(const std::string& text) const override { return m_.tokenize(text); }
  Trace forward(const TokenizedText& text, const RunControl& control, const Intervention& iv) const override {
    return m_.forward(text, control, iv);
  }
  const Unembedding* unembedding() const override { return m_.unembedding(); }

 private:
  const Model& m_;
};

}  // namespace attnlab
