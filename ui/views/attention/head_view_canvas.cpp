#include "ui/views/attention/head_view_canvas.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <functional>

#include "core/session/token_pins.h"
#include "ui/plots/view_style.h"
#include "ui/views/common/head_names.h"

namespace attnlab::ui {
namespace {

constexpr int kMargin = 8;
constexpr int kLevels = 16;
constexpr std::size_t kMaxLines = 4000;
// Weights below this are no line at all, even at threshold 0 (masked weights come out as ~1e-39).
constexpr float kZero = 1e-6f;  // opacity buckets: one pen per head and level, lines drawn in batches

QString elided(const QString& s) { return s.size() > 16 ? s.left(15) + QChar(0x2026) : s; }

}  // namespace

HeadViewCanvas::HeadViewCanvas(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::ClickFocus);
}

QColor HeadViewCanvas::headColor(int head) {
  // Tableau 10: distinct on light and dark backgrounds; beyond ten heads, golden-angle hues.
  static const QRgb base[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                              0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
  if (head < 10) return QColor(base[head]);
  return QColor::fromHsv(static_cast<int>(std::fmod(head * 137.508, 360.0)), 200, 210);
}

void HeadViewCanvas::setData(const ResultPtr& result, int layer) {
  std::vector<std::shared_ptr<const Mat>> maps;
  std::vector<const Mat*> heads;
  const int n = result->trace().tokenCount();
  tooLong_.clear();
  QStringList tokens = result->tokenLabels();
  if (n > kMaxTokens) {
    tooLong_ = tr("The head view draws texts of up to %1 tokens; this one has %2. The heatmap (zoom and pan) and the "
                  "model view show every token.")
                   .arg(kMaxTokens)
                   .arg(n);
    tokens.clear();
  } else {
    for (int h = 0; h < result->trace().headCount(); ++h) {
      maps.push_back(result->attentionMap(layer, h));  // a long input's maps are recomputed here (head_maps.h)
      heads.push_back(maps.back().get());
    }
  }
  const bool sameHeads = heads.size() == visible_.size();  // visible_ outlives clearData
  // A hovered or pinned token is an index: with other tokens it would name another word.
  if (tokens != tokens_) setFocusToken(-1, -1, false);
  result_ = result;
  maps_ = std::move(maps);
  heads_ = std::move(heads);
  tokens_ = tokens;
  if (!sameHeads) visible_.assign(heads_.size(), true);
  rebuildLines();
  updateMinimumHeight();
  update();
}

void HeadViewCanvas::clearData() {
  result_.reset();
  maps_.clear();
  heads_.clear();
  lines_.clear();
  lines_.shrink_to_fit();
  update();
}

void HeadViewCanvas::setHeadVisible(int head, bool visible) {
  if (head < 0 || head >= static_cast<int>(visible_.size())) return;
  visible_[static_cast<std::size_t>(head)] = visible;
  update();
}

bool HeadViewCanvas::headVisible(int head) const {
  return head >= 0 && head < static_cast<int>(visible_.size()) && visible_[static_cast<std::size_t>(head)];
}

void HeadViewCanvas::setThreshold(double t) {
  threshold_ = std::clamp(t, 0.0, 1.0);
  rebuildLines();
  update();
}

void HeadViewCanvas::setFontScale(double scale) {
  fontScale_ = scale;
  QFont f = font();
  f.setPointSizeF(9.5 * scale);
  setFont(f);
  updateMinimumHeight();
  update();
}

void HeadViewCanvas::setPerHeadColumns(bool on) {
  perHead_ = on;
  updateMinimumHeight();
  update();
}

void HeadViewCanvas::updateMinimumHeight() {
  setMinimumHeight(topMargin() + kMargin + static_cast<int>(tokens_.size()) * naturalRowHeight());
}

void HeadViewCanvas::setFocusToken(int side, int token, bool pin) {
  if (token < 0) side = -1;
  pinned_ = pin && token >= 0;
  if (side == focusSide_ && token == focusToken_) return;
  focusSide_ = side;
  focusToken_ = token;
  update();
}

void HeadViewCanvas::setSharedTokens(const std::vector<int>& pinned, int hovered) {
  std::vector<int> pins = pinsWithin(pinned, static_cast<int>(tokens_.size()));
  if (hovered >= tokens_.size()) hovered = -1;
  if (pins == sharedPins_ && hovered == sharedHover_) return;
  sharedPins_ = std::move(pins);
  sharedHover_ = hovered;
  update();
}

std::vector<int> HeadViewCanvas::focusTokens(int* side) const {
  int s = 0;
  std::vector<int> out;
  if (focusToken_ >= 0) {
    s = focusSide_;
    out = {focusToken_};
  } else if (!sharedPins_.empty()) {
    out = sharedPins_;
  } else if (sharedHover_ >= 0) {
    out = {sharedHover_};
  } else {
    s = -1;
  }
  if (side) *side = s;
  return out;
}

void HeadViewCanvas::rebuildLines() {
  lines_.clear();
  for (std::size_t h = 0; h < heads_.size(); ++h) {
    const Mat& a = *heads_[h];
    for (int j = 0; j < a.cols(); ++j)  // down each column: the maps are column-major
      for (int i = 0; i < a.rows(); ++i)
        if (a(i, j) >= threshold_ && a(i, j) >= kZero) lines_.push_back({i, j, static_cast<int>(h), a(i, j)});
  }
  // Beyond kMaxLines the picture is a grey mass anyway and painting lags: keep the strongest ones.
  totalLines_ = static_cast<int>(lines_.size());
  if (lines_.size() > kMaxLines) {
    std::nth_element(lines_.begin(), lines_.begin() + kMaxLines, lines_.end(),
                     [](const Line& a, const Line& b) { return a.weight > b.weight; });
    lines_.resize(kMaxLines);
  }
}

float HeadViewCanvas::focusFloor(const Mat& a, const std::vector<int>& focus, int side) const {
  const int n = static_cast<int>(tokens_.size());
  if (n < kFocusEdgesFrom) return 0.f;
  std::vector<float> w;
  w.reserve(static_cast<std::size_t>(n) * focus.size());
  for (int f : focus)
    for (int t = 0; t < n; ++t) w.push_back(side == 0 ? a(f, t) : a(t, f));
  const std::size_t k = std::min(w.size(), static_cast<std::size_t>(kFocusEdges) * focus.size());
  std::nth_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(k - 1), w.end(), std::greater<float>());
  return w[k - 1];
}

int HeadViewCanvas::naturalRowHeight() const { return std::max(6, static_cast<int>(fontMetrics().height() * 1.35)); }

int HeadViewCanvas::topMargin() const { return kMargin + (perHead_ ? fontMetrics().height() + 4 : 0); }

// Short sentences spread over the whole height they are given, so a figure of nine tokens fills its
// page (it once sat in the top quarter); long ones scroll at the natural spacing.
int HeadViewCanvas::rowHeight() const {
  const int natural = naturalRowHeight();
  if (tokens_.empty()) return natural;
  return std::max(natural, (height() - topMargin() - kMargin) / static_cast<int>(tokens_.size()));
}

int HeadViewCanvas::columnWidth() const {
  int w = 20;
  const QFontMetrics fm(font());
  for (const QString& t : tokens_) w = std::max(w, fm.horizontalAdvance(elided(t)));
  return std::min(w + 12, width() / 3);
}

std::vector<HeadViewCanvas::Panel> HeadViewCanvas::panels() const {
  // Columns close together (as in BertViz), centred: long lines across a wide window are hard to
  // follow. Rows stretched to fill a tall figure widen the gap with them, so lines keep their slope.
  const double avail = width() - 2 * kMargin - 2 * columnWidth();
  const double stretch = std::max(1.0, rowHeight() / (2.0 * naturalRowHeight()));
  const double gap = std::min({avail, 320 * fontScale_ * stretch, std::max(320 * fontScale_, 0.5 * width())});
  if (!perHead_) return {{(width() - gap) / 2, (width() + gap) / 2, -1}};
  std::vector<int> shown;
  for (std::size_t h = 0; h < visible_.size(); ++h)
    if (visible_[h]) shown.push_back(static_cast<int>(h));
  if (shown.empty()) return {};
  const double space = 14 * fontScale_, k = static_cast<double>(shown.size());
  const double w = std::min(gap, (avail - (k - 1) * space) / k);
  double x = (width() - (k * w + (k - 1) * space)) / 2;
  std::vector<Panel> out;
  for (int h : shown) {
    out.push_back({x, x + w, h});
    x += w + space;
  }
  return out;
}

double HeadViewCanvas::rowY(int token) const { return topMargin() + (token + 0.5) * rowHeight(); }

QSize HeadViewCanvas::sizeHint() const {
  return {600, topMargin() + kMargin + static_cast<int>(tokens_.size()) * naturalRowHeight()};
}

bool HeadViewCanvas::tokenAt(const QPoint& pos, int* side, int* token) const {
  const int row = (pos.y() - topMargin()) / rowHeight();
  if (pos.y() < topMargin() || row < 0 || row >= tokens_.size()) return false;
  const std::vector<Panel> ps = panels();
  if (ps.empty()) return false;
  const int colW = columnWidth();
  if (pos.x() >= ps.front().left - colW && pos.x() < ps.front().left) {
    *side = 0;
  } else if (pos.x() > ps.back().right && pos.x() <= ps.back().right + colW) {
    *side = 1;
  } else {
    return false;
  }
  *token = row;
  return true;
}

std::vector<std::vector<QLineF>> HeadViewCanvas::collectLines(const QRect& clip, std::vector<float>* emphasis) const {
  const int heads = static_cast<int>(heads_.size());
  std::vector<const Panel*> panelOf(static_cast<std::size_t>(heads), nullptr);
  const std::vector<Panel> ps = panels();
  for (const Panel& panel : ps)
    for (int h = 0; h < heads; ++h)
      if (panel.head == h || panel.head < 0) panelOf[static_cast<std::size_t>(h)] = &panel;
  std::vector<std::vector<QLineF>> buckets(static_cast<std::size_t>(heads * kLevels));
  const int rowH = rowHeight();
  const auto add = [&](int q, int k, int h, float w) {
    const Panel* panel = panelOf[static_cast<std::size_t>(h)];
    const double y1 = rowY(q), y2 = rowY(k);
    const double top = clip.top() - rowH, bottom = clip.bottom() + rowH;
    if (!panel || std::max(y1, y2) < top || std::min(y1, y2) > bottom) return;
    // Cut the segment to the exposed band: the rasteriser's cost follows the length it is given.
    const double leftX = panel->left, rightX = panel->right;
    QLineF line(leftX, y1, rightX, y2);
    if (y1 != y2) {
      const auto xAt = [&](double y) { return leftX + (rightX - leftX) * (y - y1) / (y2 - y1); };
      const double ya = std::clamp(y1, top, bottom), yb = std::clamp(y2, top, bottom);
      line = QLineF(xAt(ya), ya, xAt(yb), yb);
    }
    const int level = std::min(kLevels - 1, static_cast<int>(w * kLevels));
    buckets[static_cast<std::size_t>(h * kLevels + level)].push_back(line);
  };
  // In focus, every weight of the focused token (down to a quarter of the threshold); otherwise the
  // precomputed lines above the threshold.
  // Several focused tokens (pins): the other column is shaded by their summed attention.
  int side = -1;
  const std::vector<int> focus = focusTokens(&side);
  if (side >= 0) {
    for (int h = 0; h < heads; ++h) {
      if (!visible_[static_cast<std::size_t>(h)]) continue;
      const Mat& a = *heads_[static_cast<std::size_t>(h)];
      // Long texts: only each focused token's strongest edges, else its lines cover the column.
      const float floor = static_cast<float>(
          std::max({threshold_ / 4, static_cast<double>(kZero), static_cast<double>(focusFloor(a, focus, side))}));
      for (int t = 0; t < tokens_.size(); ++t) {
        float sum = 0;
        for (int f : focus) {
          const float w = side == 0 ? a(f, t) : a(t, f);
          sum += w;
          if (w < floor) continue;
          side == 0 ? add(f, t, h, w) : add(t, f, h, w);
        }
        float& e = (*emphasis)[static_cast<std::size_t>(t)];
        e = std::max(e, sum);
      }
    }
  } else {
    for (const Line& l : lines_)
      if (visible_[static_cast<std::size_t>(l.head)]) add(l.query, l.key, l.head, l.weight);
  }
  return buckets;
}

void HeadViewCanvas::paintEvent(QPaintEvent* event) {
  QPainter p(this);
  const ViewStyle& style = ViewStyle::instance();
  // Only the part in the scroll area's viewport: repaint() asks for the whole (tall) canvas.
  QRect clip = event->rect();
  const QRect visible = visibleRegion().boundingRect();
  if (!visible.isEmpty()) clip &= visible;
  p.fillRect(clip, style.background());
  if (!tooLong_.isEmpty()) {
    p.setPen(style.foreground());
    p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin), Qt::AlignCenter | Qt::TextWordWrap, tooLong_);
    return;
  }
  if (tokens_.isEmpty()) return;
  std::vector<float> emphasis(static_cast<std::size_t>(tokens_.size()), 0.f);  // other column, in focus
  const auto buckets = collectLines(clip, &emphasis);
  linesDrawn_ = 0;
  for (const auto& b : buckets) linesDrawn_ += static_cast<int>(b.size());
  // Many lines: thin cosmetic pens without antialiasing take the rasteriser's fast path. Wide
  // antialiased strokes cost tens of µs each (bench_gui), so they are kept for a few hundred lines
  // (short sentences, or one focused token), where they look best.
  const bool fast = linesDrawn_ > 400;
  p.setRenderHint(QPainter::Antialiasing, !fast);
  p.setClipRect(clip);
  // One opacity scale for every head and both arrangements: alpha = weight (in kLevels steps).
  for (int h = 0; h < static_cast<int>(heads_.size()); ++h)
    for (int level = 0; level < kLevels; ++level) {
      const auto& b = buckets[static_cast<std::size_t>(h * kLevels + level)];
      if (b.empty()) continue;
      QColor c = headColor(h);
      c.setAlphaF((level + 1.0) / kLevels);
      QPen pen(c, fast ? 0.0 : style.lineWidth(focusTokens().empty() ? 1.5 : 2.0), Qt::SolidLine, Qt::RoundCap);
      p.setPen(pen);
      p.drawLines(b.data(), static_cast<int>(b.size()));
    }
  paintLabels(p, clip, emphasis);
}

void HeadViewCanvas::paintLabels(QPainter& p, const QRect& clip, const std::vector<float>& emphasis) {
  // Token labels, only the exposed rows. Queries right-aligned against their lines, keys left-aligned.
  const ViewStyle& style = ViewStyle::instance();
  const std::vector<Panel> ps = panels();
  if (ps.empty()) return;
  const int colW = columnWidth(), rowH = rowHeight(), top = topMargin();
  const QColor fg = style.foreground();
  p.setPen(fg);
  for (const Panel& panel : ps)
    if (panel.head >= 0) {
      p.setPen(headColor(panel.head));
      p.drawText(QRectF(panel.left, kMargin, panel.right - panel.left, top - kMargin), Qt::AlignCenter,
                 tr("H%1").arg(panel.head) + (result_ ? kvSuffix(result_->trace(), panel.head) : QString()));
    }
  const double leftX = ps.front().left, rightX = ps.back().right;
  const int first = std::max(0, (clip.top() - top) / rowH - 1);
  const int last = std::min(static_cast<int>(tokens_.size()) - 1, (clip.bottom() - top) / rowH + 1);
  int side = -1;
  const std::vector<int> focus = focusTokens(&side);
  QColor mark = style.dark() ? QColor(255, 255, 255) : QColor(0, 0, 0);
  for (int t = first; t <= last; ++t) {
    const int y = top + t * rowH;
    const QRect left(static_cast<int>(leftX) - colW, y, colW - 6, rowH);
    const QRect right(static_cast<int>(rightX) + 6, y, colW - 6, rowH);
    if (side >= 0) {
      const QRect own = side == 0 ? left : right, other = side == 0 ? right : left;
      const bool pinned = focusToken_ >= 0 ? pinned_ : !sharedPins_.empty();
      if (std::find(focus.begin(), focus.end(), t) != focus.end())
        p.fillRect(own, QColor(0xE6, 0x55, 0x0D, pinned ? 200 : 120));
      mark.setAlphaF(std::min(1.0f, emphasis[static_cast<std::size_t>(t)]) * 0.35);
      p.fillRect(other, mark);
    }
    if (t == sharedHover_ && (side < 0 || std::find(focus.begin(), focus.end(), t) == focus.end())) {
      p.fillRect(left, QColor(0xE6, 0x55, 0x0D, 60));  // hovered in another view, while pins hold the lines
      p.fillRect(right, QColor(0xE6, 0x55, 0x0D, 60));
    }
    p.setPen(fg);
    p.drawText(left, Qt::AlignRight | Qt::AlignVCenter, elided(tokens_[t]));
    p.drawText(right, Qt::AlignLeft | Qt::AlignVCenter, elided(tokens_[t]));
  }
}

void HeadViewCanvas::mouseMoveEvent(QMouseEvent* event) {
  int side, token;
  const bool on = tokenAt(event->pos(), &side, &token);
  emit tokenHovered(on ? token : -1);
  if (pinned_) return;
  if (on)
    setFocusToken(side, token, false);
  else
    setFocusToken(-1, -1, false);
}

void HeadViewCanvas::mousePressEvent(QMouseEvent* event) {
  int side, token;
  const bool on = tokenAt(event->pos(), &side, &token);
  // Ctrl/Shift-click adds to the window's pins, whose lines then show together: no focus of its own.
  if (!on || (pinned_ && side == focusSide_ && token == focusToken_) ||
      (event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier)))
    setFocusToken(-1, -1, false);  // a click elsewhere, or on the pinned token, unpins
  else
    setFocusToken(side, token, true);
  if (on) emit tokenClicked(token, event->modifiers());
}

void HeadViewCanvas::leaveEvent(QEvent*) {
  emit tokenHovered(-1);
  if (!pinned_) setFocusToken(-1, -1, false);
}

}  // namespace attnlab::ui
