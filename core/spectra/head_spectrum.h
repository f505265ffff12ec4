#pragma once
// Spectra of the softmax heads of a Trace: the attention matrix, its pre-softmax scores QKᵀ·scale
// (rank ≤ d_head) and elementwise exp of the scores (which can lift the rank above d_head), and the
// layers × heads table of ranks and entropies.
//
// The Trace stores the forward pass in float, whose rounding (~1e-7) would count as extra rank under
// numpy's threshold (σ_max·n·1e-16). So every matrix here is recomputed in double from the head's
// Q and K: scores = Q·Kᵀ·scale, attention = softmax(mask(scores)) with the blocks' softmax.
#include <vector>

#include "core/base/run_control.h"
#include "core/model/trace.h"
#include "core/spectra/spectrum.h"

namespace attnlab {

/// A head's matrices in double.  All [n, n].
struct HeadMatricesD {
  MatD scores;       ///< Q·Kᵀ·scale, unmasked
  MatD expScores;    ///< exp(scores − max scores), unmasked: the numerator of softmax before the mask
  MatD attention;    ///< softmax rows of the (masked) scores
  double scale = 1;  ///< the head's score scale, recovered from the trace (see scoreScale)
};

/// The scale the forward pass applied: the least-squares c in scores ≈ c·Q·Kᵀ (exact up to float
/// rounding; 1 when Q·Kᵀ is zero). The Trace does not store it, and it differs by model and mode.
double scoreScale(const HeadTrace& h);

/// The head's matrices recomputed in double (see the file comment).
HeadMatricesD headMatricesD(const HeadTrace& h, bool causal);

struct HeadSpectrum {
  int n = 0, dHead = 0;
  Spectrum attention;  ///< with eigenvalues
  Spectrum scores;
  Spectrum expScores;
};

/// The three spectra of one head, computed side by side on the OpenMP threads from
/// kParallelSpectrumSize tokens up. Checks `control` after each of them (progress 0…1).
HeadSpectrum headSpectrum(const HeadTrace& h, bool causal, const RunControl& control = {}, bool withEigenvalues = true);

struct HeadRankCell {
  int numericalRank = 0;
  double effectiveRank = 0;
  double entropy = 0;  ///< mean row entropy of the attention, nats
};

/// layers × heads, layer-major: cells[l][h].
struct HeadRankTable {
  int n = 0;
  std::vector<std::vector<HeadRankCell>> cells;
};

/// Rank and entropy of every head's attention, heads side by side on the OpenMP threads. Checks
/// `control` after every head.
HeadRankTable headRankTable(const Trace& t, const RunControl& control = {});

}  // namespace attnlab
