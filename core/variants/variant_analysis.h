#pragma once
// The comparison behind the variants view and `attnlab dump --variants`: the same Q, K, V through
// every chosen variant, each with its matrix, output and metrics against softmax; and Performer's
// approximation curve (relative error vs m).
#include <string>
#include <vector>

#include "core/base/run_control.h"
#include "core/variants/variant_settings.h"

namespace attnlab {

struct VariantMetrics {
  int rank = 0;
  double entropy = 0;    ///< mean row entropy, nats
  double sparsity = 0;   ///< mean top-k mass share
  double relError = 0;   ///< ‖Â − A‖_F / ‖A‖_F against the reference softmax
  double outputMse = 0;  ///< mean (out − out_softmax)²
};

struct VariantResult {
  std::string name;
  std::string description;
  MatD attention;  ///< explicit path  [n, n]
  MatD output;     ///< efficient path  [n, d_v]
  VariantMetrics metrics;
};

struct VariantComparison {
  AttentionMask mask;
  int topK = 0;
  MatD reference;                       ///< scaled softmax with the same mask  [n, n]
  MatD referenceOutput;                 ///< [n, d_v]
  std::vector<VariantResult> variants;  ///< in the settings' order
};

/// Metrics of one matrix/output against the reference.
VariantMetrics measure(const MatD& attention, const MatD& output, const MatD& reference, const MatD& referenceOutput,
                       int topK);

/// Runs every variant of `s.names` on q, k [n, d_head], v [n, d_v]. Throws InputError for bad
/// settings, Cancelled between variants.
VariantComparison compareVariants(const MatD& q, const MatD& k, const MatD& v, const VariantSettings& s,
                                  bool modelCausal, const RunControl& control = {});

struct CurveSeries {
  FeatureKind kind;
  bool orthogonal;
  std::vector<double> meanError;  ///< mean over redraws of ‖Â − A‖_F/‖A‖_F, one per m
  std::vector<double> stdError;   ///< standard deviation over redraws
};

struct PerformerCurve {
  std::vector<int> features;  ///< m = 1, 2, 4, …, maxFeatures
  int redraws = 0;
  std::vector<CurveSeries> series;  ///< positive/trig × iid/orthogonal
};

/// Relative error of Performer's matrix to softmax vs m, for the four feature kinds, averaged over
/// `s.redraws` redraws (seeds derived from s.featureSeed), on the given Q and K with the settings'
/// mask and temperature. Cost ~ redraws · Σm · n·(n + d).
PerformerCurve performerCurve(const MatD& q, const MatD& k, const VariantSettings& s, bool modelCausal,
                              int maxFeatures = kMaxFeatures, const RunControl& control = {});

}  // namespace attnlab
