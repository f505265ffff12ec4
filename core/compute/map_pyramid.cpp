#include "core/compute/map_pyramid.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace attnlab {
namespace {

/// Cells of the map covered along one axis by cell `i` of level `k` (2ᵏ, fewer at the far edge).
int cellsAlong(int extent, int k, int i) { return std::min(1 << k, extent - i * (1 << k)); }

int ceilShift(int extent, int k) { return (extent + (1 << k) - 1) >> k; }

}  // namespace

void MapPyramid::build(int rows, int cols, Producer producer, const Options& options) {
  rows_ = std::max(0, rows);
  cols_ = std::max(0, cols);
  producer_ = std::move(producer);
  // Levels of the same shape as the last build's keep their storage: building into the same pyramid again
  // (the heatmap alternates two) spares the page faults of fresh buffers (170 MB at 8,192 tokens, ~20% of it).
  cachedRow_ = -1;
  maxValue_ = 0;
  if (empty()) {
    max_.clear();
    mean_.clear();
    return;
  }
  const int coarsest = std::max(1, options.coarsestSide);
  int count = 1;
  while (std::max(ceilShift(rows_, count - 1), ceilShift(cols_, count - 1)) > coarsest) ++count;
  max_.resize(static_cast<std::size_t>(count));
  mean_.resize(static_cast<std::size_t>(count));
  const std::size_t level0Bytes = static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_) * sizeof(float);
  const bool keep0 = count == 1 || level0Bytes <= options.level0BudgetBytes;
  if (keep0)
    max_[0].resize(rows_, cols_);
  else
    max_[0].resize(0, 0);
  for (int k = 1; k <= std::min(2, count - 1); ++k) {  // levels 1 and 2 are made block by block
    max_[static_cast<std::size_t>(k)].resize(levelRows(k), levelCols(k));
    mean_[static_cast<std::size_t>(k)].resize(levelRows(k), levelCols(k));
  }
  const int blocks = (rows_ + kBlockRows - 1) / kBlockRows;
  // Blocks are independent: each writes its own rows of levels 0, 1 and 2. Later rows of a causal map cost
  // more (more visible keys), hence dynamic scheduling.
#pragma omp parallel if (options.concurrentProducer && blocks > 1)
  {
    Mat block, scratchMax, scratchMean;
#pragma omp for schedule(dynamic, 1)
    for (int b = 0; b < blocks; ++b) {
      const int first = b * kBlockRows, n = std::min(kBlockRows, rows_ - first);
      block.resize(n, cols_);
      producer_(first, n, block);
      assert(block.rows() == n && block.cols() == cols_);
      int c0 = 0, c1 = cols_;
      if (options.nonZeroColumns) {
        options.nonZeroColumns(first, n, c0, c1);
        c0 = std::clamp(c0, 0, cols_);
        c1 = std::clamp(c1, c0, cols_);
      }
      if (keep0) max_[0].middleRows(first, n) = block;
      if (count > 1) poolBlock(block, first, c0, c1, scratchMax, scratchMean);
    }
  }
  for (int k = 3; k < count; ++k) buildCoarser(k);
  maxValue_ = max_.back().maxCoeff();
}

void MapPyramid::build(std::shared_ptr<const Mat> map, const Options& options) {
  const int r = static_cast<int>(map->rows()), c = static_cast<int>(map->cols());
  build(
      r, c, [map](int first, int n, Mat& block) { block = map->middleRows(first, n); }, options);
}

void MapPyramid::poolBlock(const Mat& block, int firstRow, int c0, int c1, Mat& scratchMax, Mat& scratchMean) {
  // Level 1 from rows [firstRow, firstRow + n) of the map: firstRow is even (kBlockRows is), so the
  // block's row pairs are level 1's rows firstRow/2 … . The block is column-major: each column pair is
  // read down its two contiguous columns, writing one column of level 1. No OpenMP region per block: on a
  // two-core machine they cost more in waiting than they save (bench_heatmap); whole blocks may go to the
  // threads instead (Options::concurrentProducer). Column pairs wholly outside [c0, c1) are 0 unread.
  const int n = static_cast<int>(block.rows()), outRows = (n + 1) / 2, outCols = levelCols(1), base = firstRow / 2;
  const int firstPair = c0 / 2, endPair = std::min(outCols, (c1 + 1) / 2);
  // Written column by column into column-major scratch, then copied into the row-major level: writing
  // the level directly strides by a whole row (16 kB at 8,192 columns), and those addresses share one
  // L1 set, so every store missed. The scratch covers kChunk columns of level 1 at a time ([≤ 32, 128]: 16 kB,
  // in L1), so it is copied out while still in cache.
  constexpr int kChunk = 128;
  scratchMax.resize(outRows, kChunk);
  scratchMean.resize(outRows, kChunk);
  for (int j0 = 0; j0 < outCols; j0 += kChunk) {
    const int width = std::min(kChunk, outCols - j0);
    auto levelMax = max_[1].block(base, j0, outRows, width);
    auto levelMean = mean_[1].block(base, j0, outRows, width);
    for (int j = j0; j < j0 + width; ++j) {
      float* mx = scratchMax.col(j - j0).data();
      float* mean = scratchMean.col(j - j0).data();
      if (j < firstPair || j >= endPair) {
        std::fill(mx, mx + outRows, 0.0f);
        std::fill(mean, mean + outRows, 0.0f);
        continue;
      }
      const int col = 2 * j, pair = std::min(2, cols_ - col);
      const float* a = block.col(col).data();
      const float* b = pair == 2 ? block.col(col + 1).data() : a;  // a lone last column pairs with itself
      const float perCell = pair == 2 ? 1.0f : 0.5f;               // … and its sum is halved back
      // Whole row pairs in a loop without branches (the compiler vectorises it), then a lone last row.
      const float pairCells = static_cast<float>(2 * pair);
      for (int i = 0; i < n / 2; ++i) {
        const int r = 2 * i;
        mx[i] = std::max(std::max(a[r], b[r]), std::max(a[r + 1], b[r + 1]));
        mean[i] = ((a[r] + b[r]) * perCell + (a[r + 1] + b[r + 1]) * perCell) / pairCells;
      }
      if (n % 2 == 1) {
        const int r = n - 1;
        mx[outRows - 1] = std::max(a[r], b[r]);
        mean[outRows - 1] = (a[r] + b[r]) * perCell / static_cast<float>(pair);
      }
    }
    levelMax = scratchMax.leftCols(width);
    levelMean = scratchMean.leftCols(width);
    // Level 2's cells over this chunk, from the level-1 cells just written (still in cache): reading the
    // whole of level 1 back afterwards (134 MB at 8,192 tokens) cost more than making them.
    if (levelCount() > 2) poolCells(2, base / 2, (base + outRows + 1) / 2, j0 / 2, (j0 + width + 1) / 2);
  }
}

void MapPyramid::poolCells(int k, int rowBegin, int rowEnd, int colBegin, int colEnd) {
  // Level k's cells [rowBegin, rowEnd) × [colBegin, colEnd) from level k − 1: the max of the ≤ 4 maxima; the
  // mean of the ≤ 4 means weighted by the map cells each covers. Inside the map the 4 cover equal areas (a
  // plain average of 4 floats); only the far edges' cells cover fewer, and take the weighted sum in double.
  const MapLevel& fineMax = max_[static_cast<std::size_t>(k - 1)];
  const MapLevel& fineMean = mean_[static_cast<std::size_t>(k - 1)];
  const int fineRows = static_cast<int>(fineMax.rows()), fineCols = static_cast<int>(fineMax.cols());
  MapLevel& mx = max_[static_cast<std::size_t>(k)];
  MapLevel& mean = mean_[static_cast<std::size_t>(k)];
  const int whole = 1 << (k - 1);  // map cells along a fine cell's side inside the map
  // Cells (i, j) with j < interiorCols cover two whole fine columns: (2j + 2)·whole ≤ the map's columns.
  const int interiorCols = std::max(colBegin, std::min(colEnd, cols_ / (2 * whole)));
  for (int i = rowBegin; i < rowEnd; ++i) {
    const int r0 = 2 * i, r1 = std::min(2 * i + 2, fineRows);
    const bool rowsEqual = r1 == r0 + 2 && cellsAlong(rows_, k - 1, r0 + 1) == whole;
    int j = colBegin;
    if (rowsEqual) {  // the interior: a plain loop over the rows' contiguous cells (vectorised)
      const float *max0 = fineMax.row(r0).data(), *max1 = fineMax.row(r0 + 1).data();
      const float *mean0 = fineMean.row(r0).data(), *mean1 = fineMean.row(r0 + 1).data();
      float *outMax = mx.row(i).data(), *outMean = mean.row(i).data();
      for (; j < interiorCols; ++j) {
        const int c0 = 2 * j;
        outMax[j] = std::max(std::max(max0[c0], max0[c0 + 1]), std::max(max1[c0], max1[c0 + 1]));
        outMean[j] = ((mean0[c0] + mean0[c0 + 1]) + (mean1[c0] + mean1[c0 + 1])) * 0.25f;
      }
    }
    for (; j < colEnd; ++j) {
      const int c0 = 2 * j, c1 = std::min(2 * j + 2, fineCols);
      if (rowsEqual && c1 == c0 + 2 && cellsAlong(cols_, k - 1, c0 + 1) == whole) {
        mx(i, j) = std::max(std::max(fineMax(r0, c0), fineMax(r0, c0 + 1)),
                            std::max(fineMax(r0 + 1, c0), fineMax(r0 + 1, c0 + 1)));
        mean(i, j) =
            ((fineMean(r0, c0) + fineMean(r0, c0 + 1)) + (fineMean(r0 + 1, c0) + fineMean(r0 + 1, c0 + 1))) * 0.25f;
        continue;
      }
      float m = -std::numeric_limits<float>::infinity();
      double sum = 0, cells = 0;
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) {
          const double w =
              static_cast<double>(cellsAlong(rows_, k - 1, r)) * static_cast<double>(cellsAlong(cols_, k - 1, c));
          m = std::max(m, fineMax(r, c));
          sum += w * static_cast<double>(fineMean(r, c));
          cells += w;
        }
      mx(i, j) = m;
      mean(i, j) = static_cast<float>(sum / cells);
    }
  }
}

void MapPyramid::buildCoarser(int k) {
  const int outRows = levelRows(k), outCols = levelCols(k);
  max_[static_cast<std::size_t>(k)].resize(outRows, outCols);
  mean_[static_cast<std::size_t>(k)].resize(outRows, outCols);
#pragma omp parallel for schedule(static) if (static_cast <long>(outRows) * outCols > 1 << 14)
  for (int i = 0; i < outRows; ++i) poolCells(k, i, i + 1, 0, outCols);
}

bool MapPyramid::hasLevel(int level) const {
  return level >= 0 && level < levelCount() && max_[static_cast<std::size_t>(level)].size() > 0;
}

const MapLevel& MapPyramid::level(int level, Pooling pooling) const {
  assert(hasLevel(level));
  const auto k = static_cast<std::size_t>(level);
  return level == 0 || pooling == Pooling::Max ? max_[k] : mean_[k];
}

int MapPyramid::levelRows(int level) const { return ceilShift(rows_, level); }
int MapPyramid::levelCols(int level) const { return ceilShift(cols_, level); }

int MapPyramid::levelFor(double pixelsPerCell) const {
  if (levelCount() <= 1 || !(pixelsPerCell > 0) || pixelsPerCell >= 1) return 0;
  // Level k's cells are 2ᵏ · pixelsPerCell pixels: the largest k with that ≤ 1 (a hair of slack for
  // exact powers of two).
  const int k = static_cast<int>(std::floor(std::log2(1.0 / pixelsPerCell) + 1e-9));
  return std::clamp(k, 0, levelCount() - 1);
}

float MapPyramid::value(int row, int col) const {
  assert(row >= 0 && row < rows_ && col >= 0 && col < cols_);
  if (hasLevel(0)) return max_[0](row, col);
  if (cachedRow_ != row) {
    rowCache_.resize(1, cols_);
    producer_(row, 1, rowCache_);
    cachedRow_ = row;
  }
  return rowCache_(0, col);
}

void MapPyramid::readWindow(int firstRow, int count, int firstCol, int colCount, MapLevel& out) const {
  assert(firstRow >= 0 && firstRow + count <= rows_ && firstCol >= 0 && firstCol + colCount <= cols_);
  out.resize(count, colCount);
  if (hasLevel(0)) {
    out = max_[0].block(firstRow, firstCol, count, colCount);
    return;
  }
  Mat block;
  for (int r = 0; r < count; r += kBlockRows) {
    const int n = std::min(kBlockRows, count - r);
    block.resize(n, cols_);
    producer_(firstRow + r, n, block);
    out.middleRows(r, n) = block.middleCols(firstCol, colCount);
  }
}

void MapPyramid::releaseProducer() {
  producer_ = nullptr;
  cachedRow_ = -1;
}

std::size_t MapPyramid::bytes() const {
  std::size_t total = 0;
  for (std::size_t k = 0; k < max_.size(); ++k)
    total += static_cast<std::size_t>(max_[k].size() + mean_[k].size()) * sizeof(float);
  return total;
}

}  // namespace attnlab
