#include "ui/views/heads/heads_numbers.h"

#include <numeric>

namespace attnlab::ui {
namespace {

std::vector<std::string> indexLabels(const char* prefix, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

void appendAtlasScores(ViewNumbers& n, const HeadAtlas& atlas) {
  for (const auto& [name, grid] : atlas.metrics) {
    MatD m(atlas.layers, atlas.heads);
    for (int l = 0; l < atlas.layers; ++l)
      for (int h = 0; h < atlas.heads; ++h)
        m(l, h) = l < static_cast<int>(grid.size()) && h < static_cast<int>(grid[l].size())
                      ? grid[l][h]
                      : std::numeric_limits<double>::quiet_NaN();
    n.matrices.push_back({"score_" + name, name + " of every head [layer, head]", m, indexLabels("L", atlas.layers),
                          indexLabels("H", atlas.heads)});
  }
  const AtlasProbe& p = atlas.probe;
  MatD ids(1, static_cast<Eigen::Index>(p.ids.size()));
  for (size_t i = 0; i < p.ids.size(); ++i) ids(0, static_cast<Eigen::Index>(i)) = p.ids[i];
  std::vector<std::string> tokens = p.tokens;
  tokens.resize(p.ids.size());
  n.matrices.push_back({"probe_ids",
                        "the probe's token ids (T = " + std::to_string(p.repeat) + ", seed " + std::to_string(p.seed) +
                            ", first random token at " + std::to_string(p.offset) + ")",
                        ids,
                        {"id"},
                        tokens});
}

MatD clusteredSimilarity(const HeadAtlas& atlas, std::vector<int>* order) {
  const int count = static_cast<int>(atlas.similarity.size());
  std::vector<int> o = atlas.clusterOrder;
  if (static_cast<int>(o.size()) != count) {
    o.resize(static_cast<size_t>(count));
    std::iota(o.begin(), o.end(), 0);
  }
  MatD m(count, count);
  for (int i = 0; i < count; ++i)
    for (int j = 0; j < count; ++j) m(i, j) = atlas.similarity[o[i]][o[j]];
  if (order) *order = o;
  return m;
}

void appendSimilarity(ViewNumbers& n, const HeadAtlas& atlas) {
  std::vector<int> order;
  const MatD m = clusteredSimilarity(atlas, &order);
  const auto label = [&](int index) { return headName(index / atlas.heads, index % atlas.heads); };
  std::vector<std::string> labels;
  for (int i : order) labels.push_back(label(i));
  n.matrices.push_back(
      {"similarity", "similarity of the heads' attention (1 − JSD / ln 2), clustered order", m, labels, labels});
  if (atlas.map2d.empty()) return;
  MatD map(static_cast<Eigen::Index>(atlas.map2d.size()), 2);
  std::vector<std::string> rows;
  for (size_t i = 0; i < atlas.map2d.size(); ++i) {
    map(static_cast<Eigen::Index>(i), 0) = atlas.map2d[i][0];
    map(static_cast<Eigen::Index>(i), 1) = atlas.map2d[i][1];
    rows.push_back(label(static_cast<int>(i)));
  }
  n.matrices.push_back({"map2d", "2-D map of the heads (classical MDS of 1 − similarity)", map, rows, {"x", "y"}});
}

void appendContexts(ViewNumbers& n, const HeadAtlas& atlas, int layer, int head) {
  const auto it = atlas.topExamples.find(headKey(layer, head));
  if (it == atlas.topExamples.end()) return;
  std::map<std::string, int> rank;
  for (const StrongContext& c : it->second) {
    MatD row(1, static_cast<Eigen::Index>(c.tokens.size()));
    for (size_t j = 0; j < c.tokens.size(); ++j)
      row(0, static_cast<Eigen::Index>(j)) = j < c.attention.size() ? c.attention[j] : 0.0;
    const std::string name = "context_" + c.kind + "_" + std::to_string(rank[c.kind]++);
    const std::string label = "score=" + std::to_string(c.score) + ", query=" + std::to_string(c.position) +
                              ", key=" + std::to_string(c.key) + ", source=" + c.source + ":" +
                              std::to_string(c.tokenIndex);
    n.matrices.push_back({name, "head " + headName(layer, head) + ": " + c.text, row, {label}, c.tokens});
  }
}

}  // namespace attnlab::ui
