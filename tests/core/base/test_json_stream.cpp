// The streaming JSON writer (core/base/json_stream.h) gives nlohmann's dump() text byte for byte — compact and
// indented, numbers in nlohmann's own shortest form, NaN and infinities as null, bytes that are not UTF-8 as U+FFFD,
// small values nested at any depth — whatever size its pieces are handed to the sink in; and the streaming file
// writer (core/base/atomic_file.h) makes the file appear only on commit, leaving the old one on a failure.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/base/atomic_file.h"
#include "core/base/errors.h"
#include "core/base/json_stream.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// {"a": [[...]], "b": {}, "c": [], "d": {"x": 1, "y": ["s\xff", null]}, "e": [[], [1.0]]} written by hand.
void writeDocument(JsonStreamWriter& w, const MatD& m, const nlohmann::json& small) {
  w.beginObject();
  w.key("a");
  w.matrix(m);
  w.key("b");
  w.beginObject();
  w.endObject();
  w.key("c");
  w.beginArray();
  w.endArray();
  w.key("d");
  w.value(small);
  w.key("e");
  w.beginArray();
  w.beginArray();
  w.endArray();
  w.beginArray();
  w.number(1.0);
  w.endArray();
  w.endArray();
  w.endObject();
  w.finish();
}

nlohmann::json sameAsTree(const MatD& m, const nlohmann::json& small) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      row.push_back(std::isfinite(m(i, j)) ? nlohmann::json(m(i, j)) : nlohmann::json(nullptr));
    rows.push_back(row);
  }
  return {{"a", rows},
          {"b", nlohmann::json::object()},
          {"c", nlohmann::json::array()},
          {"d", small},
          {"e", nlohmann::json::array({nlohmann::json::array(), nlohmann::json::array({1.0})})}};
}

std::string readAll(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

class TestJsonStream : public QObject {
  Q_OBJECT
 private slots:
  void sameTextAsNlohmann_data() {
    QTest::addColumn<int>("indent");
    QTest::addColumn<int>("flushBytes");
    QTest::newRow("compact, one piece") << -1 << (1 << 20);
    QTest::newRow("compact, 7-byte pieces") << -1 << 7;
    QTest::newRow("indent 0") << 0 << 64;
    QTest::newRow("indent 2") << 2 << 1;
    QTest::newRow("indent 4") << 4 << (1 << 20);
  }
  void sameTextAsNlohmann() {
    QFETCH(int, indent);
    QFETCH(int, flushBytes);
    MatD m(3, 4);
    m << 0.1, -0.0, 1.0, 1e-300, kInf, -kInf, kNaN, 123456789.0, 3.0f, 0.1f, -2.5e-7, 1e21;
    const nlohmann::json small = {{"x", 1}, {"y", {"s\xff", nullptr}}, {"z", {{"deep", {1.5, "t"}}}}};
    std::string text;
    int pieces = 0;
    JsonStreamWriter w(
        [&](std::string_view piece) {
          text += piece;
          ++pieces;
        },
        indent, static_cast<std::size_t>(flushBytes));
    writeDocument(w, m, small);
    const std::string expected =
        sameAsTree(m, small).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
    QCOMPARE(QString::fromStdString(text), QString::fromStdString(expected));
    QVERIFY(text.find("null") != std::string::npos && text.find("\xef\xbf\xbd") != std::string::npos);
    if (flushBytes < 10) QVERIFY(pieces > 5);  // handed over as it is written, not at the end
  }

  void unbalancedDocumentsAreRefused() {
    JsonStreamWriter w([](std::string_view) {});
    w.beginArray();
    QVERIFY_THROWS_EXCEPTION(InputError, w.finish());
    JsonStreamWriter v([](std::string_view) {});
    QVERIFY_THROWS_EXCEPTION(InputError, v.endObject());
  }

  void fileAppearsOnlyOnCommit() {
    QTemporaryDir dir;
    const QString path = dir.filePath("out.json");
    {
      std::ofstream(path.toStdString()) << "old";
      AtomicFileWriter f(path.toStdString());
      f.write("[1,");
      f.write("2]");
      QCOMPARE(readAll(path), std::string("old"));  // the old file stays until the commit
      f.commit();
    }
    QCOMPARE(readAll(path), std::string("[1,2]"));
    {
      AtomicFileWriter f(path.toStdString());
      f.write("half of a ");
    }  // destroyed without commit: an error on the way
    QCOMPARE(readAll(path), std::string("[1,2]"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);  // no temporary file left
  }

  void aFailedPieceKeepsTheOldFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath("out.json");
    std::ofstream(path.toStdString()) << "old";
    AtomicFileWriter f(path.toStdString());
    failNextAtomicWriteForTesting(ENOSPC);
    QString message;
    try {
      f.write("many bytes");
    } catch (const InputError& e) {
      message = e.what();
    }
    QVERIFY2(
        message.contains("out.json") && message.contains("No space left on device") && message.contains("unchanged"),
        qPrintable(message));
    QCOMPARE(readAll(path), std::string("old"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
  }
};

ATTNLAB_TEST_APPLESS_MAIN(TestJsonStream)
#include "test_json_stream.moc"
