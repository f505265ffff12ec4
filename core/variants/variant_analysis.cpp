#include "core/variants/variant_analysis.h"

#include <cmath>

#include "core/base/eigen_threads.h"
#include "core/base/errors.h"
#include "core/base/rng.h"
#include "core/spectra/attention_metrics.h"

namespace attnlab {

VariantMetrics measure(const MatD& attention, const MatD& output, const MatD& reference, const MatD& referenceOutput,
                       int topK) {
  VariantMetrics m;
  m.rank = numericalRank(attention);
  m.entropy = meanRowEntropy(attention);
  m.sparsity = topKSparsity(attention, topK);
  m.relError = relativeFrobeniusError(attention, reference);
  m.outputMse = meanSquaredError(output, referenceOutput);
  return m;
}

VariantComparison compareVariants(const MatD& q, const MatD& k, const MatD& v, const VariantSettings& s,
                                  bool modelCausal, const RunControl& control) {
  const SingleThreadedEigen oneThread;
  validate(s);
  if (q.rows() != k.rows() || k.rows() != v.rows() || q.cols() != k.cols())
    throw InputError("attention variants need Q, K [n, d_head] and V [n, d_v] with the same n");
  VariantComparison c;
  c.mask = maskOf(s, modelCausal);
  c.topK = s.topK;
  const VariantPtr ref = makeReference(s);
  c.reference = ref->attention(q, k, c.mask);
  c.referenceOutput = ref->output(q, k, v, c.mask);
  for (std::size_t i = 0; i < s.names.size(); ++i) {
    control.checkpoint(static_cast<double>(i) / static_cast<double>(s.names.size()));
    const VariantPtr variant = makeVariant(s.names[i], s);
    VariantResult r;
    r.name = variant->name();
    r.description = variant->describe();
    r.attention = variant->attention(q, k, c.mask);
    r.output = variant->output(q, k, v, c.mask);
    r.metrics = measure(r.attention, r.output, c.reference, c.referenceOutput, s.topK);
    c.variants.push_back(std::move(r));
  }
  control.checkpoint(1.0);
  return c;
}

PerformerCurve performerCurve(const MatD& q, const MatD& k, const VariantSettings& s, bool modelCausal, int maxFeatures,
                              const RunControl& control) {
  const SingleThreadedEigen oneThread;
  validate(s);
  PerformerCurve curve;
  curve.redraws = s.redraws;
  for (int m = 1; m <= std::min(maxFeatures, kMaxFeatures); m *= 2) curve.features.push_back(m);
  const AttentionMask mask = maskOf(s, modelCausal);
  const MatD reference = makeReference(s)->attention(q, k, mask);
  const std::size_t steps = 4 * curve.features.size();
  std::size_t step = 0;
  for (FeatureKind kind : {FeatureKind::Positive, FeatureKind::Trig}) {
    for (bool orthogonal : {false, true}) {
      CurveSeries series{kind, orthogonal, {}, {}};
      for (int m : curve.features) {
        control.checkpoint(static_cast<double>(step++) / static_cast<double>(steps));
        double sum = 0, sumSq = 0;
        for (int r = 0; r < s.redraws; ++r) {
          PerformerConfig c;
          c.features = m;
          c.kind = kind;
          c.orthogonal = orthogonal;
          // The same redraw r uses the same seed for every kind: the curves differ by the method only.
          c.seed = mixSeed(s.featureSeed, static_cast<uint64_t>(r), static_cast<uint64_t>(m));
          c.stabilize = s.stabilize;
          c.epsilon = s.epsilon;
          c.temperature = s.temperature;
          const double e = relativeFrobeniusError(PerformerAttention(c).attention(q, k, mask), reference);
          sum += e;
          sumSq += e * e;
        }
        const double mean = sum / s.redraws;
        series.meanError.push_back(mean);
        series.stdError.push_back(std::sqrt(std::max(0.0, sumSq / s.redraws - mean * mean)));
      }
      curve.series.push_back(std::move(series));
    }
  }
  control.checkpoint(1.0);
  return curve;
}

}  // namespace attnlab
