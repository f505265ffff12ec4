#pragma once
// Two encoder–decoder passes compared everywhere (issue 33's reuse): every head's q, k, v, scores and attention, every
// block output and the embeddings of both stacks, every cross-attention map, the stacks' outputs and the logits,
// |a − b| ≤ tol · max(1, |b|). Counts the mismatches and warns with the first entry of each.
#include <algorithm>
#include <string>

#include "core/model/encdec_trace.h"
#include "tests/fuzzy_compare.h"

namespace attnlab::test {

/// The largest |a − b| / max(1, |b|) of every comparison of equal shapes so far (reported by the tests).
inline double& worstRelativeError() {
  static double worst = 0;
  return worst;
}

inline int countMismatch(const Mat& got, const Mat& want, double tol, const std::string& what) {
  if (got.rows() == want.rows() && got.cols() == want.cols() && got.size() > 0)
    worstRelativeError() =
        std::max(worstRelativeError(), double(((got - want).array().abs() / want.array().abs().max(1.0f)).maxCoeff()));
  std::string why;
  if (matricesClose(got, want, tol, &why)) return 0;
  qWarning("%s: %s", what.c_str(), why.c_str());
  return 1;
}

inline int compareHeadTraces(const std::vector<HeadTrace>& got, const std::vector<HeadTrace>& want, double tol,
                             const std::string& where) {
  if (got.size() != want.size()) return qWarning("%s: head count", where.c_str()), 1;
  int bad = 0;
  for (std::size_t h = 0; h < got.size(); ++h) {
    const std::string w = where + " head " + std::to_string(h);
    bad += countMismatch(got[h].q, want[h].q, tol, w + " q");
    bad += countMismatch(got[h].k(), want[h].k(), tol, w + " k");
    bad += countMismatch(got[h].v(), want[h].v(), tol, w + " v");
    bad += countMismatch(got[h].scores, want[h].scores, tol, w + " scores");
    bad += countMismatch(got[h].attention, want[h].attention, tol, w + " attention");
  }
  return bad;
}

/// Every map and output of one stack's Trace; the token ids must be equal.
inline int compareStackTraces(const Trace& got, const Trace& want, double tol, const std::string& stack) {
  if (got.tokenIds != want.tokenIds || got.layers.size() != want.layers.size() || got.causal != want.causal)
    return qWarning("%s: token ids, layer count or causality differ", stack.c_str()), 1;
  int bad = countMismatch(got.embeddings, want.embeddings, tol, stack + " embeddings");
  for (std::size_t l = 0; l < got.layers.size(); ++l) {
    const std::string w = stack + " layer " + std::to_string(l);
    const LayerTrace &a = got.layers[l], &b = want.layers[l];
    bad += compareHeadTraces(a.heads, b.heads, tol, w);
    bad += countMismatch(a.concat, b.concat, tol, w + " concat");
    bad += countMismatch(a.attentionOut, b.attentionOut, tol, w + " attention_out");
    bad += countMismatch(a.mlpOut, b.mlpOut, tol, w + " mlp_out");
    bad += countMismatch(a.residualOut, b.residualOut, tol, w + " residual_out");
  }
  return bad;
}

/// The cross layers, the stacks' outputs and the logits (the Traces themselves with compareStackTraces).
inline int compareCrossAndOutputs(const EncDecTrace& got, const EncDecTrace& want, double tol) {
  if (got.cross.size() != want.cross.size()) return qWarning("cross layer count"), 1;
  int bad = 0;
  for (std::size_t l = 0; l < got.cross.size(); ++l) {
    const std::string w = "cross layer " + std::to_string(l);
    bad += compareHeadTraces(got.cross[l].heads, want.cross[l].heads, tol, w);
    bad += countMismatch(got.cross[l].concat, want.cross[l].concat, tol, w + " concat");
    bad += countMismatch(got.cross[l].attentionOut, want.cross[l].attentionOut, tol, w + " attention_out");
    bad += countMismatch(got.cross[l].residualOut, want.cross[l].residualOut, tol, w + " residual_out");
  }
  bad += countMismatch(got.encoderOut, want.encoderOut, tol, "encoder output");
  bad += countMismatch(got.decoderOut, want.decoderOut, tol, "decoder output");
  bad += countMismatch(got.logits, want.logits, tol, "logits");
  return bad;
}

}  // namespace attnlab::test
