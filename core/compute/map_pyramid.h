#pragma once
// A pyramid of pooled levels of one attention map, so a view can draw an 8,192² map within a frame
// without reading its 67 M cells: level k holds ⌈rows/2ᵏ⌉ × ⌈cols/2ᵏ⌉ cells, each the max and the mean
// of the 2ᵏ × 2ᵏ block of the map it covers (clipped at odd edges; the mean divides by the cells
// actually covered, so it is the exact mean of the map's cells there).
//
// The map itself need not be in memory: build() asks a producer for row blocks of kBlockRows rows,
// so memory is O(kBlockRows · cols) beyond the levels. Level 0 (full resolution) is kept only when it
// fits the byte budget; otherwise value() reads one row through the producer (and caches it: hover
// reads one cell after another on the same row). Pooled levels go down to ≤ coarsestSide on the long side.
#include <Eigen/Dense>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/base/tensor.h"

namespace attnlab {

/// How a pooled cell summarises the cells it covers.
enum class Pooling { Max, Mean };

/// One level's cells, row-major: views paint it row by row.
using MapLevel = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class MapPyramid {
 public:
  /// Fills `block` [count, cols] with rows firstRow … firstRow + count − 1 of the map. Called from one
  /// thread at a time, in increasing row order during build(), unless Options::concurrentProducer.
  using Producer = std::function<void(int firstRow, int count, Mat& block)>;

  static constexpr int kBlockRows = 64;  ///< rows per producer call in build(); even, so 2 × 2 cells align
  static constexpr std::size_t kDefaultBudgetBytes = std::size_t{64} << 20;

  struct Options {
    std::size_t level0BudgetBytes = kDefaultBudgetBytes;  ///< level 0 kept when rows·cols·4 fits
    int coarsestSide = 64;                                ///< the last level is ≤ this on its long side
    /// The producer may run on several threads at once (it is thread-safe): build() then hands the row blocks
    /// to the OpenMP threads, each with its own scratch (a head switch at 8,192 tokens: 2 cores, ~2× faster).
    bool concurrentProducer = false;
    /// Columns [first, end) outside which rows firstRow … firstRow + count − 1 are exactly 0 (a causal map's
    /// upper triangle, a window's band): pooling writes 0 there without reading the block. Empty: all columns.
    std::function<void(int firstRow, int count, int& first, int& end)> nonZeroColumns;
  };

  MapPyramid() = default;
  /// Builds the levels of a rows × cols map. Level 0 is always kept when the map is no larger than
  /// coarsestSide (no pooled level would exist), whatever the budget.
  void build(int rows, int cols, Producer producer, const Options& options);
  void build(int rows, int cols, Producer producer) { build(rows, cols, std::move(producer), Options()); }
  /// The same from a map in memory, shared (no copy): the producer reads `map`, kept alive here.
  void build(std::shared_ptr<const Mat> map, const Options& options);
  void build(std::shared_ptr<const Mat> map) { build(std::move(map), Options()); }
  /// Convenience: copies `map`.
  void build(const Mat& map, const Options& options) { build(std::make_shared<const Mat>(map), options); }
  void build(const Mat& map) { build(map, Options()); }

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  bool empty() const { return rows_ == 0 || cols_ == 0; }
  /// Levels 0 … levelCount() − 1; level 0 may be absent (hasLevel(0) false).
  int levelCount() const { return static_cast<int>(max_.size()); }
  bool hasLevel(int level) const;
  /// Level `level`'s cells [⌈rows/2ᵏ⌉, ⌈cols/2ᵏ⌉]; level 0 is the same matrix for both poolings.
  const MapLevel& level(int level, Pooling pooling) const;
  int levelRows(int level) const;
  int levelCols(int level) const;
  /// The coarsest level whose cells are still ≤ 1 screen pixel at `pixelsPerCell` screen pixels per map
  /// cell (≥ 1: level 0), clamped to the levels that exist (level 0 counts even when not kept).
  int levelFor(double pixelsPerCell) const;

  /// The map's value at full resolution: level 0, or the producer's row (cached: the last row asked).
  float value(int row, int col) const;
  /// Rows [firstRow, firstRow + count) and columns [firstCol, firstCol + colCount) at full resolution
  /// into `out` (row-major), from level 0 or through the producer in blocks.
  void readWindow(int firstRow, int count, int firstCol, int colCount, MapLevel& out) const;
  /// The largest value of the map (the coarsest level's largest maximum).
  float maxValue() const { return maxValue_; }
  /// Bytes held by the levels (both poolings; level 0 once).
  std::size_t bytes() const;
  /// Lets go of the producer (and what it holds: a head pyramid's result, its trace) while keeping the levels'
  /// storage for the next build(); value() and readWindow() then need level 0.
  void releaseProducer();

 private:
  /// Level 1's cells over the block's rows; columns outside [c0, c1) of the map are 0. Scratch: column-major.
  void poolBlock(const Mat& block, int firstRow, int c0, int c1, Mat& scratchMax, Mat& scratchMean);
  /// Level k's cells [rowBegin, rowEnd) × [colBegin, colEnd) from level k − 1.
  void poolCells(int k, int rowBegin, int rowEnd, int colBegin, int colEnd);
  void buildCoarser(int level);

  int rows_ = 0, cols_ = 0;
  Producer producer_;
  std::vector<MapLevel> max_, mean_;  ///< per level; level 0 in max_[0] only (empty when not kept)
  float maxValue_ = 0;
  mutable int cachedRow_ = -1;
  mutable Mat rowCache_;  ///< [1, cols]: the row value() read last through the producer
};

}  // namespace attnlab
