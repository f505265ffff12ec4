// utf8::lossy (core/text/utf8.h): ill-formed UTF-8 replaced by one U+FFFD per maximal subpart, as Python's
// bytes.decode("utf-8", errors="replace") does (and so Hugging Face's decode of byte-level pieces). Every expected
// string below is what Python 3 printed for the same bytes (by hand: python3 -c "print(repr(b'…'.decode('utf-8',
// errors='replace')))").
#include <QtTest>

#include <string>

#include "core/text/utf8.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {
const std::string R = "\xEF\xBF\xBD";  // U+FFFD
}

class TestUtf8Lossy : public QObject {
  Q_OBJECT
 private slots:
  void lossy_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QByteArray>("expected");
    const auto row = [](const char* name, const std::string& in, const std::string& out) {
      QTest::newRow(name) << QByteArray::fromStdString(in) << QByteArray::fromStdString(out);
    };
    row("valid text stays", "cat \xF0\x9F\x98\x80x", "cat \xF0\x9F\x98\x80x");
    row("a 4-byte character cut after 2", "cat\xF0\x9F", "cat" + R);
    row("cut after 3", "\xF0\x9F\x98", R);
    row("a lead byte before ASCII", "a\xC3(", "a" + R + "(");
    row("two bytes that start nothing", "\xFF\xFE", R + R);
    row("a surrogate's three bytes", "\xED\xA0\x80", R + R + R);
    row("E0 needs A0-BF next", "\xE0\x80", R + R);
    row("beyond U+10FFFF", "\xF4\x90\x80\x80", R + R + R + R);
    row("overlong C0 AF", "\xC0\xAF", R + R);
    row("3-byte cut after 2", "\xE2\x82", R);
    row("empty", "", "");
  }
  void lossy() {
    QFETCH(QByteArray, bytes);
    QFETCH(QByteArray, expected);
    const std::string got = utf8::lossy(bytes.toStdString());
    QCOMPARE(QByteArray::fromStdString(got), expected);
    QVERIFY(utf8::isValid(got));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestUtf8Lossy)
#include "test_utf8_lossy.moc"
