#pragma once
// Editing a long text (issue 18): a causal model's rows before the first changed token are the same as in the
// previous run, so a pass may take them from that run instead of computing them. Per layer it then runs the
// products (Q, K, V, the output projection, the MLP) only on the new rows [p, n) and attends again with every row
// (tiled, so the summaries cover the whole map): typing at the end of a 1,024-token page costs the attention, not
// the 12 layers' products of 1,024 rows. The numbers equal a full pass's to float rounding.
#include <vector>

#include "core/model/intervention.h"

namespace attnlab {

/// Rows a causal forward pass of `ids` may take from iv.prefix: the common prefix of `ids` and the prefix trace's
/// token ids, at most n − 1 (the last row is always computed). 0 when the pass keeps maps (short inputs), when the
/// intervention needs every row (mean ablation, patches) or resumes layers (iv.reuse), or when the prefix trace has
/// another layer count.
int reusablePrefixRows(const Intervention& iv, const std::vector<int>& ids, int layers, bool keepMaps);

enum class HeadPart { Q, K, V };

/// Q, K or V of a layer's heads [p + fresh.rows(), heads·dHead]: rows [0, p) from the prefix layer's heads (kv head g
/// read from query head g·groupSize, which shares it), the rest `fresh`.
Mat stackHeadRows(const LayerTrace& prefix, HeadPart part, int p, const Eigen::Ref<const Mat>& fresh, int heads,
                  int groupSize, int dHead);

/// Rows [0, p) of `top` above `fresh`.
Mat stackRows(const Mat& top, int p, const Mat& fresh);

}  // namespace attnlab
