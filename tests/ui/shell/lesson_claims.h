#pragma once
// The support of test_lesson_claims*.cpp: a lesson walked step by step in a real MainWindow through its panel, the
// view on screen and the numbers it computed for the step, and a claim's check (empty when the view agrees with the
// lesson's text, else what the view shows instead). The claims themselves live in the two test files.
#include <QDir>
#include <QtTest>

#include <cfloat>
#include <functional>
#include <map>

#include "core/session/params_json.h"
#include "core/spectra/spectrum.h"
#include "ui/shell/lesson_panel.h"
#include "ui/shell/live_controller.h"
#include "ui/shell/main_window.h"
#include "ui/views/common/encdec_result.h"

namespace attnlab::ui::lesson_claims {

/// One step as the class sees it: the view on screen and the result it drew.
struct Shown {
  TraceView* view = nullptr;
  ResultPtr result;
  ViewNumbers numbers;

  /// The matrix of numbers() named `name` (e.g. "attention_L0_H0"), or empty with a QWARN.
  MatD matrix(const std::string& name) const {
    for (const LabelledMatrix& m : numbers.matrices)
      if (m.name == name) return m.values;
    QWARN(qPrintable(QString("the view has no matrix named %1").arg(QString::fromStdString(name))));
    return {};
  }
};

/// Walks one lesson in a real window, step by step, through the lesson panel.
class LessonRun {
 public:
  LessonRun(MainWindow& w, int lesson) : w_(w), lesson_(lesson) {}

  /// Applies step `step` (1-based) as the panel does and waits until its view has drawn it.
  Shown step(int step) {
    LessonPanel* panel = w_.lessonPanel();
    if (panel->lessonIndex() != lesson_) panel->selectLesson(lesson_);
    panel->goToStep(step - 1);
    const Shown s = redraw();
    const QString shots = qEnvironmentVariable("ATTNLAB_LESSON_SHOTS");
    if (!shots.isEmpty() && QDir().mkpath(shots))
      w_.grab().save(
          QDir(shots).filePath(QString("lesson%1_step%2.png").arg(lesson_ + 1, 2, 10, QChar('0')).arg(step)));
    return s;
  }

  /// After an edit in the view's own controls: waits for the run it asked for and the view's analyses.
  Shown redraw() {
    waitUntilDrawn();
    Shown s;
    s.view = w_.currentView();
    s.result = shownStack(w_.controller()->lastResult());  // an encoder–decoder's chosen stack, as on screen
    if (s.view && s.result && s.result->ok()) s.numbers = s.view->numbers(*s.result);
    return s;
  }

 private:
  /// The run of the step's parameters delivered, then the view's own analyses (curves, spectra, comparisons).
  void waitUntilDrawn() {
    QTest::qWait(60);  // a control's edit runs after the window's 30 ms debounce
    const std::string wanted = toJson(w_.controller()->params()).dump();
    QTRY_VERIFY_WITH_TIMEOUT(!w_.controller()->busy() && w_.controller()->lastResult() &&
                                 toJson(w_.controller()->lastResult()->params).dump() == wanted,
                             60000);
    QCoreApplication::processEvents();  // the result's delivery to the visible views
    if (TraceView* v = w_.currentView()) v->waitForAnalyses();
    QCoreApplication::processEvents();
  }

  MainWindow& w_;
  int lesson_;
};

/// Per row, the weight on each word: a word that occurs twice ("the") is one word with the sum of its copies'
/// weights, as the text counts them.  [n] maps of word → weight
inline std::vector<std::map<QString, double>> wordWeights(const MatD& a, const QStringList& tokens) {
  std::vector<std::map<QString, double>> rows(static_cast<std::size_t>(a.rows()));
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) rows[std::size_t(i)][tokens.value(int(j))] += a(i, j);
  return rows;
}

/// The largest share one word takes of each row.
inline std::vector<double> topWordShare(const MatD& a, const QStringList& tokens) {
  std::vector<double> top;
  for (const auto& row : wordWeights(a, tokens)) {
    double m = 0;
    for (const auto& [word, w] : row) m = std::max(m, w);
    top.push_back(m);
  }
  return top;
}

/// The share each word keeps for itself (its own copies included).
inline std::vector<double> ownWordShare(const MatD& a, const QStringList& tokens) {
  std::vector<double> own;
  const auto rows = wordWeights(a, tokens);
  for (std::size_t i = 0; i < rows.size(); ++i) own.push_back(rows[i].at(tokens.value(int(i))));
  return own;
}

inline QString listed(const QStringList& tokens, const std::vector<double>& v) {
  QStringList l;
  for (std::size_t i = 0; i < v.size(); ++i) l << QString("%1 %2").arg(tokens.value(int(i))).arg(v[i], 0, 'f', 2);
  return l.join(", ");
}

/// Standard deviation of a head's scores (what the scores panel spans).
inline double spread(const Mat& scores) {
  const MatD s = scores.cast<double>();
  return std::sqrt((s.array() - s.mean()).square().mean());
}

/// A claim's check: empty when the view agrees with the text, else what it shows instead.
using Check = std::function<QString(LessonRun&)>;

struct Claim {
  int lesson;  ///< 1-based, as in the lessons' titles
  int step;    ///< 1-based, as the panel counts
  const char* what;
  Check check;
};

inline QString fail(const QString& what) { return what.isEmpty() ? QString("claim not met") : what; }

/// Rank of a matrix the view shows in single precision: numpy's matrix_rank rule with float's ε (the trace keeps
/// scores as floats, whose rounding alone would make a rank-4 product "full rank" at double's ε).
inline int floatRankOf(const MatD& m) {
  const VecD sv = singularValues(m);
  const double tol = sv.size() ? sv(0) * double(std::max(m.rows(), m.cols())) * FLT_EPSILON : 0;
  return static_cast<int>((sv.array() > tol).count());
}

template <typename V>
V* viewAs(const Shown& s) {
  return qobject_cast<V*>(s.view);
}

// --- the claims, lesson by lesson ------------------------------------------------------------------------------

/// Applies `claim`'s lesson in a 1280 × 720 window and runs its check (a Qt Test failure names what the view shows).
inline void checkClaim(const Claim& claim) {
  MainWindow w(false);
  w.resize(1280, 720);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  LessonRun run(w, claim.lesson - 1);
  const QString why = claim.check(run);
  QVERIFY2(why.isEmpty(), qPrintable(why));
}

/// One data row per claim, named after lesson and step.
inline void addClaimRows(const std::vector<Claim>& all) {
  QTest::addColumn<int>("index");
  for (std::size_t i = 0; i < all.size(); ++i)
    QTest::newRow(qPrintable(QString("lesson %1 step %2: %3").arg(all[i].lesson).arg(all[i].step).arg(all[i].what)))
        << static_cast<int>(i);
}

}  // namespace attnlab::ui::lesson_claims
