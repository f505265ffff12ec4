// What the lessons say is what the class sees, lessons 1–6: every step whose text states a number or an ordering
// ("soft", "saturates", "the two rows of 'the' are the same", "lower-triangular", …) is applied in a MainWindow as the
// lesson panel applies it (LessonPanel::goToStep), the view on screen finishes its own analyses, and the claim is
// checked against the number that view computes (its numbers()). One data row per claim, named after lesson and step.
// Lessons 7–11 are in test_lesson_claims_analyses.cpp. Also here: Page Down on a lesson's last step goes on into the
// next lesson, Page Up on a first step back.
//
// With ATTNLAB_LESSON_SHOTS=DIR each checked step is also saved as DIR/lessonNN_stepS.png (1280 × 720 window) to look
// at what the text describes.
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "tests/ui/shell/lesson_claims.h"

using namespace attnlab;
using namespace attnlab::ui;
using namespace attnlab::ui::lesson_claims;

namespace {

std::vector<Claim> claims();

}  // namespace

class TestLessonClaims : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QCoreApplication::setOrganizationName("AttentionLabTests"); }

  void eachClaimHolds_data() { addClaimRows(claims()); }
  void eachClaimHolds() {
    QFETCH(int, index);
    checkClaim(claims()[static_cast<std::size_t>(index)]);
  }

  void pageDownContinuesIntoTheNextLesson() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    LessonPanel* panel = w.lessonPanel();
    panel->selectLesson(0);
    const int last = static_cast<int>(panel->currentLesson()->steps.size()) - 1;
    panel->goToStep(last);
    QTest::keyClick(&w, Qt::Key_PageDown);  // the Lesson ▸ Next step action, a clicker's forward key
    QCOMPARE(panel->lessonIndex(), 1);
    QCOMPARE(panel->stepIndex(), 0);
    QCOMPARE(w.controller()->params().model.mode, Mode::Basic);  // lesson 2's first step: basic attention
    QCOMPARE(w.controller()->params().sentence, panel->currentLesson()->steps[0].params.sentence);
    QTest::keyClick(&w, Qt::Key_PageUp);  // back onto lesson 1's last step, not its first
    QCOMPARE(panel->lessonIndex(), 0);
    QCOMPARE(panel->stepIndex(), last);
    QCOMPARE(w.currentView()->viewName().toStdString(), panel->currentLesson()->steps.back().view);
    QCOMPARE(w.controller()->params().model.seed, panel->currentLesson()->steps.back().params.model.seed);
    // At the ends of the list nothing moves: the first lesson's first step, the last lesson's last step.
    panel->selectLesson(0);
    QTest::keyClick(&w, Qt::Key_PageUp);
    QCOMPARE(panel->lessonIndex(), 0);
    QCOMPARE(panel->stepIndex(), 0);
    panel->selectLesson(panel->lessonCount() - 1);
    const int end = static_cast<int>(panel->currentLesson()->steps.size()) - 1;
    panel->goToStep(end);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QCOMPARE(panel->lessonIndex(), panel->lessonCount() - 1);
    QCOMPARE(panel->stepIndex(), end);
  }
};

namespace {

std::vector<Claim> weightedAverage() {
  return {
      {1, 1, "every row sums to 1",
       [](LessonRun& run) {
         const MatD a = run.step(1).matrix("attention_L0_H0");
         const double worst = (a.rowwise().sum().array() - 1).abs().maxCoeff();
         return worst < 1e-5 ? QString() : QString("a row sums to 1 ± %1").arg(worst);
       }},
      {1, 2, "the two rows of 'the' are equal and score highest with 'the'",
       [](LessonRun& run) {
         const Shown s = run.step(2);
         const MatD scores = s.matrix("scores_L0_H0");
         const QStringList tokens = s.result->tokenLabels();
         if (tokens.value(0) != "the" || tokens.value(4) != "the")
           return fail("the sentence changed: " + tokens.join(' '));
         if ((scores.row(0) - scores.row(4)).cwiseAbs().maxCoeff() > 1e-4) return fail("the rows of 'the' differ");
         Eigen::Index top = 0;
         scores.row(0).maxCoeff(&top);
         return tokens.value(int(top)) == "the" ? QString()
                                                : fail("'the' scores highest with " + tokens.value(int(top)));
       }},
      {1, 3, "each output is closest to its own input",
       [](LessonRun& run) {
         const Shown s = run.step(3);
         const MatD y = s.matrix("output_L0_H0");
         const MatD x = s.result->trace().layers[0].heads[0].q.cast<double>();  // basic mode: Q = X
         if (y.rows() != x.rows() || y.cols() != x.cols()) return fail("outputs and inputs differ in shape");
         const QStringList tokens = s.result->tokenLabels();
         for (Eigen::Index i = 0; i < y.rows(); ++i) {
           Eigen::Index best = 0;  // by cosine; the two "the" are one vector, either counts
           (x * y.row(i).transpose()).cwiseQuotient(x.rowwise().norm()).maxCoeff(&best);
           if (tokens.value(int(best)) != tokens.value(int(i)))
             return fail(
                 QString("output %1 is closest to input %2").arg(tokens.value(int(i)), tokens.value(int(best))));
         }
         return QString();
       }},
      {1, 4, "d = 32: almost all weight on each word itself; d = 4: none keeps 90 %, walks and street less than half",
       [](LessonRun& run) {
         const Shown wide = run.step(1), narrow = run.step(4);
         const QStringList tokens = narrow.result->tokenLabels();
         const std::vector<double> own32 = ownWordShare(wide.matrix("attention_L0_H0"), tokens);
         const std::vector<double> own4 = ownWordShare(narrow.matrix("attention_L0_H0"), tokens);
         if (*std::min_element(own32.begin(), own32.end()) < 0.99) return fail("at d = 32: " + listed(tokens, own32));
         const bool spread = *std::max_element(own4.begin(), own4.end()) < 0.9 && tokens.value(2) == "walks" &&
                             own4[2] < 0.5 && tokens.value(5) == "street" && own4[5] < 0.5;
         return spread ? QString() : fail("at d = 4: " + listed(tokens, own4));
       }},
  };
}

std::vector<Claim> queriesKeysValues() {
  return {
      {2, 2, "a word attends more to another word than to itself",
       [](LessonRun& run) {
         const MatD a = run.step(2).matrix("attention_L0_H0");
         for (Eigen::Index i = 0; i < a.rows(); ++i) {
           Eigen::Index top = 0;
           a.row(i).maxCoeff(&top);
           if (top != i) return QString();
         }
         return fail("every word still attends most to itself");
       }},
  };
}

std::vector<Claim> scaling() {
  // "soft": no word gets more than 60 % of a row; "saturated": one word takes more than 90 % of every row.
  const auto soft = [](int step) {
    return [step](LessonRun& run) {
      const Shown s = run.step(step);
      const QStringList tokens = s.result->tokenLabels();
      const std::vector<double> top = topWordShare(s.matrix("attention_L0_H0"), tokens);
      const double sd = spread(s.result->trace().layers[0].heads[0].scores);
      if (*std::max_element(top.begin(), top.end()) >= 0.6)
        return fail("largest share per row: " + listed(tokens, top));
      return sd > 0.5 && sd < 1.5 ? QString() : fail(QString("the scores spread %1, not about 1").arg(sd));
    };
  };
  return {
      {3, 1, "d = 4 unscaled: scores spread about 1, no word over 60 % of a row", soft(1)},
      {3, 2, "d = 512 unscaled: scores spread about √512 ≈ 23, one word over 90 % of every row",
       [](LessonRun& run) {
         const Shown s = run.step(2);
         const QStringList tokens = s.result->tokenLabels();
         const std::vector<double> top = topWordShare(s.matrix("attention_L0_H0"), tokens);
         const double sd = spread(s.result->trace().layers[0].heads[0].scores);
         if (*std::min_element(top.begin(), top.end()) <= 0.9)
           return fail("largest share per row: " + listed(tokens, top));
         return std::abs(sd - std::sqrt(512.0)) < 4 ? QString() : fail(QString("the scores spread %1").arg(sd));
       }},
      {3, 3, "scores differ by tens within a row: ratios of millions after exp",
       [](LessonRun& run) {
         const MatD scores = run.step(3).matrix("scores_L0_H0");
         const double widest = (scores.rowwise().maxCoeff() - scores.rowwise().minCoeff()).maxCoeff();
         return widest > std::log(1e6) ? QString() : fail(QString("the widest row spans only %1").arg(widest));
       }},
      {3, 4, "d = 512 scaled: scores spread about 1, no word over 60 % of a row", soft(4)},
  };
}

std::vector<Claim> multihead() {
  return {
      {4, 3, "four head outputs of n × d/h, unified by Wo into one n × d output",
       [](LessonRun& run) {
         const Shown s = run.step(3);
         for (int h = 0; h < 4; ++h) {
           const MatD out = s.matrix("output_L0_H" + std::to_string(h));
           if (out.rows() != 5 || out.cols() != 16)
             return fail(QString("head %1: %2 × %3").arg(h).arg(out.rows()).arg(out.cols()));
         }
         const MatD unified = s.matrix("attention_out_L0");
         return unified.rows() == 5 && unified.cols() == 64
                    ? QString()
                    : fail(QString("unified %1 × %2").arg(unified.rows()).arg(unified.cols()));
       }},
      {4, 4, "eight heads in two layers",
       [](LessonRun& run) {
         int maps = 0;
         for (const LabelledMatrix& m : run.step(4).numbers.matrices) maps += m.name.rfind("attention_L", 0) == 0;
         return maps == 16 ? QString() : fail(QString("%1 maps").arg(maps));
       }},
  };
}

std::vector<Claim> masking() {
  return {
      {5, 3, "the scores panel is drawn before the mask: its upper triangle is computed",
       [](LessonRun& run) {
         const MatD scores = run.step(3).matrix("scores_L0_H0");
         const MatD upper = scores.triangularView<Eigen::StrictlyUpper>();
         return scores.rows() == 6 && upper.cwiseAbs().minCoeff() >= 0 && (upper.array() != 0).count() == 15
                    ? QString()
                    : fail("the upper triangle of the scores is not all computed");
       }},
      {5, 2, "the first word attends only to itself, the last to every word",
       [](LessonRun& run) {
         const MatD a = run.step(2).matrix("attention_L0_H0");
         const Eigen::Index n = a.rows();
         if (std::abs(a(0, 0) - 1) > 1e-6) return fail(QString("the first word keeps %1").arg(a(0, 0)));
         for (Eigen::Index i = 0; i < n; ++i)
           for (Eigen::Index j = i + 1; j < n; ++j)
             if (a(i, j) != 0)
               return fail(QString("weight %1 above the diagonal at %2, %3").arg(a(i, j)).arg(i).arg(j));
         return a.row(n - 1).minCoeff() > 0 ? QString() : fail("the last word skips a word");
       }},
      {5, 4, "every head of every layer is lower-triangular",
       [](LessonRun& run) {
         const Shown s = run.step(4);
         int maps = 0;
         for (const LabelledMatrix& m : s.numbers.matrices) {
           if (m.name.rfind("attention_L", 0) != 0) continue;
           ++maps;
           const MatD upper = m.values.triangularView<Eigen::StrictlyUpper>();
           if (upper.cwiseAbs().maxCoeff() != 0) return fail(QString::fromStdString(m.name) + " sees the future");
         }
         return maps == 12 ? QString() : fail(QString("%1 maps instead of 3 layers × 4 heads").arg(maps));
       }},
  };
}

std::vector<Claim> position() {
  // "mary gave roses to susan" ↔ "susan gave roses to mary": positions 0 and 4 trade places.
  const auto swapped = [](const MatD& a) {
    Eigen::PermutationMatrix<Eigen::Dynamic> p(a.rows());
    p.setIdentity();
    p.applyTranspositionOnTheRight(0, a.rows() - 1);
    return MatD(p * a * p.transpose());
  };
  return {
      {6, 2, "without positions, swapping the names only permutes the weights",
       [swapped](LessonRun& run) {
         const MatD before = run.step(1).matrix("attention_L0_H0");
         const MatD after = run.step(2).matrix("attention_L0_H0");
         const double d = (swapped(before) - after).cwiseAbs().maxCoeff();
         return d < 1e-5 ? QString() : fail(QString("the permuted weights differ by %1").arg(d));
       }},
      {6, 4, "with positions, the two sentences get different weights, not permuted ones",
       [swapped](LessonRun& run) {
         const MatD susan = run.step(3).matrix("attention_L0_H0");
         const MatD mary = run.step(4).matrix("attention_L0_H0");
         const double d = (swapped(susan) - mary).cwiseAbs().maxCoeff();
         return d > 0.05 ? QString() : fail(QString("the weights differ only by %1 after the swap").arg(d));
       }},
  };
}

std::vector<Claim> claims() {
  std::vector<Claim> all;
  for (auto part : {weightedAverage, queriesKeysValues, scaling, multihead, masking, position})
    for (Claim& c : part()) all.push_back(std::move(c));
  return all;
}

}  // namespace

ATTNLAB_TEST_MAIN(TestLessonClaims)
#include "test_lesson_claims.moc"
