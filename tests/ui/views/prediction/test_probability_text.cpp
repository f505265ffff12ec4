// Probabilities as the prediction views print them (issue 31): three decimals from 0.001 up, scientific notation below
// (a token at 3·10⁻⁵ read "0.000", like one the model rules out), "0" only for an exact zero.
#include <QtTest>

#include "tests/harness/test_registry.h"
#include "ui/views/prediction/probability_text.h"

using namespace attnlab::ui;

class TestProbabilityText : public QObject {
  Q_OBJECT

 private slots:
  void smallProbabilitiesKeepTheirSize_data() {
    QTest::addColumn<double>("p");
    QTest::addColumn<QString>("text");
    QTest::newRow("certain") << 1.0 << "1.000";
    QTest::newRow("common") << 0.4567 << "0.457";
    QTest::newRow("threshold") << 0.001 << "0.001";
    QTest::newRow("rare") << 3.2e-5 << "3.2·10⁻⁵";
    QTest::newRow("just below") << 0.000999 << "1.0·10⁻³";
    QTest::newRow("two digits") << 1.5e-12 << "1.5·10⁻¹²";
    QTest::newRow("zero") << 0.0 << "0";
    QTest::newRow("nan") << std::nan("") << "n/a";
  }
  void smallProbabilitiesKeepTheirSize() {
    QFETCH(double, p);
    QFETCH(QString, text);
    QCOMPARE(probabilityText(p), text);
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestProbabilityText)
#include "test_probability_text.moc"
