#pragma once
// Small multiples: one attention heatmap per (layer, head), rows = layers, columns = heads, each titled
// with what the head has become ("L1 H2 · induction 0.91"). Painted directly (a cached image per cell)
// so ten redraws a second during training cost well under a millisecond each.
#include <QImage>
#include <QWidget>

#include <Eigen/Dense>
#include <vector>

namespace attnlab::ui {

class AttentionGrid : public QWidget {
  Q_OBJECT
 public:
  explicit AttentionGrid(QWidget* parent = nullptr);
  /// attention[l][h]: [T, T] rows = queries, values in [0, 1]; titles[l][h] under each cell;
  /// `highlight` (layer, head) gets a frame (−1: none).
  void setData(const std::vector<std::vector<Eigen::MatrixXf>>& attention,
               const std::vector<std::vector<QString>>& titles, int highlightLayer, int highlightHead);
  void setFontScale(double scale);
  QSize sizeHint() const override { return {560, 320}; }
  QSize minimumSizeHint() const override { return {240, 160}; }
  int layers() const { return static_cast<int>(images_.size()); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<std::vector<QImage>> images_;
  std::vector<std::vector<QString>> titles_;
  int highlightLayer_ = -1, highlightHead_ = -1;
  double fontScale_ = 1.0;
};

}  // namespace attnlab::ui
