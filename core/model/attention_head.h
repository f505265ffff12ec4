#pragma once
#include <vector>

#include "core/model/head_options.h"
#include "core/model/trace.h"

namespace attnlab {

/// One head of scaled dot-product attention from its projected inputs, recording everything:
///   scores = Q·Kᵀ·scale          [n, n]   (kept unmasked in the trace)
///   A      = softmax(mask(scores)) rows    [n, n]
///   out    = A·V                 [n, d_head]   written to `out` (the head's columns of its layer's concat)
HeadTrace attendHead(Mat q, SharedMat k, SharedMat v, float scale, bool causal, Eigen::Ref<Mat> out);

/// One head with those options; the trace keeps the scaled (and soft-capped) scores unmasked (no summary: see
/// HeadTrace::summary).
HeadTrace attendHead(Mat q, SharedMat k, SharedMat v, const HeadOptions& o, Eigen::Ref<Mat> out);

/// The same head without its maps (long inputs, issue 18): attends kTileRows queries at a time, each tile's
/// scores only over the keys its queries see ([keys, rows] ≤ kTileRows·n floats at once), and reads the summary off
/// each tile's weights. The output equals attendHead's to float rounding; `scores` and `attention` stay empty.
/// `out`'s first `knownRows` rows may hold the output as an earlier pass made them (an edit's rows before its first
/// changed token, prefix_reuse.h): tiles wholly inside them keep those rows instead of the A·V product, half of such
/// a tile's work; their weights are still made, for the summary — unless `knownSummary` is that earlier pass's summary
/// (of as many tokens, or fewer: a text grown at the end): then the summary's rows before row `knownRows` are taken
/// from it (HeadSummaryBuilder::resume) and only the rows from the first one not taken are attended (a 1,024-token
/// GPT-2 edit of the last token: every head's last rows instead of all of them; a token appended: its row alone).
HeadTrace attendHeadTiled(Mat q, SharedMat k, SharedMat v, const HeadOptions& o, Eigen::Ref<Mat> out,
                          Eigen::Index knownRows = 0, const HeadSummary* knownSummary = nullptr);
inline constexpr int kTileRows = 64;

/// Every head of a layer: head h reads columns [h·dHead, (h+1)·dHead) of q, k and v [n, heads·dHead]
/// (column blocks of one fused [n, 3d] matrix are fine). When the layer's attention has at least
/// kParallelHeadMadds multiply-adds (GPT-2 small from about 100 tokens) the heads run side by side on the
/// OpenMP threads; the numbers are the same either way. `concat` [n, heads·dHead] receives the outputs.
std::vector<HeadTrace> attendHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                   const Eigen::Ref<const Mat>& v, int heads, int dHead, float scale, bool causal,
                                   Mat& concat, bool keepMaps = true, const LayerTrace* known = nullptr,
                                   int knownRows = 0);

inline constexpr double kParallelHeadMadds = 8.0e6;

/// Grouped-query attention: q [n, heads·dHead], k and v [n, kvHeads·dHead]; query head h reads kv head
/// ⌊h / (heads / kvHeads)⌋, whose K and V the group's traces share. `concat` [n, heads·dHead] receives the outputs.
/// keepMaps false: every head through attendHeadTiled, given the first `knownRows` rows of concat from `known`'s
/// when there is one (the previous pass of an edited text).
std::vector<HeadTrace> attendGroupedHeads(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k,
                                          const Eigen::Ref<const Mat>& v, int heads, int kvHeads, int dHead,
                                          const HeadOptions& o, Mat& concat, bool keepMaps = true,
                                          const LayerTrace* known = nullptr, int knownRows = 0);

/// The explicit maps of a head with options `o`: scores [n, n] (scaled, soft-capped, unmasked) and attention
/// [n, n] (masked, softmax rows). What attendHead keeps and what head_maps.h recomputes: the same numbers.
void explicitMaps(const Eigen::Ref<const Mat>& q, const Eigen::Ref<const Mat>& k, const HeadOptions& o, Mat& scores,
                  Mat& attention);

}  // namespace attnlab
