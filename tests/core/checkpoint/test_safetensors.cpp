// The safetensors reader: every sample file of the safetensors project, dtype conversion, and
// hand-crafted damaged files, each of which must give a message naming the file and the problem.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <fstream>

#include "core/base/errors.h"
#include "core/checkpoint/safetensors.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::string samples() { return std::string(ATTNLAB_TEST_DATA) + "/fixtures/safetensors-samples/"; }

/// 8-byte little-endian length + header + data.
std::string makeFile(const std::string& header, const std::string& data, std::uint64_t declaredLength = ~0ull) {
  const std::uint64_t n = declaredLength == ~0ull ? header.size() : declaredLength;
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string parseError(const std::string& bytes) {
  try {
    parseSafetensorsHeader(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "bad.safetensors");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

class TestSafetensors : public QObject {
  Q_OBJECT
 private slots:
  void readsEverySample_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("tensor");
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<double>("first");  // values are first, first+1, … except for unsigned types
    const char* rows[][3] = {{"B", "B", "U8"},  {"H", "H", "U16"}, {"I", "I", "U32"},
                             {"b", "b", "I8"},  {"d", "d", "F64"}, {"e", "e", "F16"},
                             {"f", "f", "F32"}, {"h", "h", "I16"}, {"i", "i", "I32"}};
    for (auto& r : rows) {
      const double first = r[2][0] == 'U' ? (r[2] == std::string("U8")    ? 253
                                             : r[2] == std::string("U16") ? 65533
                                                                          : 4294967293.0)
                                          : -3;
      QTest::addRow("%s.safetensors", r[0]) << QString("%1.safetensors").arg(r[0]) << r[1] << r[2] << first;
      QTest::addRow("overall %s", r[1]) << "overall.safetensors" << r[1] << r[2] << first;
    }
  }
  void readsEverySample() {
    QFETCH(QString, file);
    QFETCH(QString, tensor);
    QFETCH(QString, dtype);
    QFETCH(double, first);
    SafetensorsFile f(samples() + file.toStdString());
    QCOMPARE(f.header().metadata.at("test"), std::string("a"));
    const TensorInfo* t = f.find(tensor.toStdString());
    QVERIFY(t);
    QCOMPARE(QString(toString(t->dtype)), dtype);
    QCOMPARE(t->shape, std::vector<std::int64_t>{6});
    const float* v = f.floats(*t);
    // -3 -2 -1 0 1 2; unsigned types wrap the negatives around.
    const double expected[6] = {first, first + 1, first + 2, 0, 1, 2};
    for (int i = 0; i < 6; ++i) QCOMPARE(double(v[i]), double(float(expected[i])));
  }

  void convertsHalfAndBfloat() {
    // F16: 1.0, -2.0, 65504 (max), 2^-24 (smallest subnormal), -0, inf; BF16: 1.0, -2.5, 3.0e38.
    const std::uint16_t half[] = {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x8000, 0x7C00};
    float out[6];
    convertToFloat(DType::F16, reinterpret_cast<const unsigned char*>(half), 6, out);
    QCOMPARE(out[0], 1.0f);
    QCOMPARE(out[1], -2.0f);
    QCOMPARE(out[2], 65504.0f);
    QCOMPARE(out[3], std::ldexp(1.0f, -24));
    QVERIFY(out[4] == 0.0f && std::signbit(out[4]));
    QVERIFY(std::isinf(out[5]));
    const std::uint16_t bf[] = {0x3F80, 0xC020, 0x7F61};
    convertToFloat(DType::BF16, reinterpret_cast<const unsigned char*>(bf), 3, out);
    QCOMPARE(out[0], 1.0f);
    QCOMPARE(out[1], -2.5f);
    QVERIFY(std::abs(out[2] - 2.99e38f) < 0.01e38f);
    QVERIFY_THROWS_EXCEPTION(InputError,
                             convertToFloat(DType::F8E4M3, reinterpret_cast<const unsigned char*>(bf), 1, out));
  }

  void rejectsDamagedHeaders_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    auto row = [](const char* name, const std::string& bytes, const char* msg) {
      QTest::newRow(name) << QByteArray(bytes.data(), int(bytes.size())) << QString(msg);
    };
    row("empty file", "", "too short for a safetensors file (0 bytes");
    row("short file", "abc", "too short for a safetensors file (3 bytes");
    row("header beyond file", makeFile(ok, std::string(8, '\0'), 1000),
        "header length 1000 goes beyond the end of the file");
    row("header length huge", makeFile(ok, "", 1ull << 60), "beyond the format's limit of 100 MB");
    row("truncated data", makeFile(ok, std::string(4, '\0')),
        "lie outside the data area (4 bytes); is the file truncated?");
    row("malformed JSON", makeFile(R"({"a": {"dtype": )", ""), "malformed JSON");
    row("not an object", makeFile("[1,2]", ""), "the header is not a JSON object");
    row("unknown dtype", makeFile(R"({"a":{"dtype":"F12","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')),
        "tensor \"a\": unknown dtype \"F12\"");
    row("size mismatch", makeFile(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0')),
        "shape [3] of F32 needs 3 × 4 bytes, but data_offsets span 8");
    row("overlap",
        makeFile(
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
            std::string(12, '\0')),
        "tensors \"a\" and \"b\" overlap");
    row("begin after end", makeFile(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", std::string(8, '\0')),
        "data_offsets begin 8 > end 0");
    row("negative offset", makeFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})", ""),
        "must hold two non-negative integers");
    row("float shape", makeFile(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", std::string(8, '\0')),
        "\"shape\" must hold non-negative integers");
    row("shape overflow",
        makeFile(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})", ""),
        "is too large");
    row("missing field", makeFile(R"({"a":{"dtype":"F32","shape":[2]}})", ""), "tensor \"a\" has no \"data_offsets\"");
    row("metadata not strings", makeFile(R"({"__metadata__":{"k":1}})", ""),
        "\"__metadata__\" value of \"k\" is not a string");
    row("deep nesting", makeFile(std::string(5000, '[') + std::string(5000, ']'), ""),
        "JSON nested deeper than 64 levels");
    row("invalid UTF-8 in name", makeFile("{\"a\xff\":1}", ""), "malformed JSON");
  }
  void rejectsDamagedHeaders() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    const QString got = QString::fromStdString(parseError(bytes.toStdString()));
    QVERIFY2(got.startsWith("bad.safetensors") && got.contains(message), qPrintable(got));
  }

  void acceptsPaddingZeroSizedAndHoles() {
    // Trailing spaces pad the header (Hugging Face aligns the data area); empty tensors may share an offset.
    const std::string header =
        R"({"e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    const std::string bytes = makeFile(header + "   ", std::string(4, '\0'));
    const auto h = parseSafetensorsHeader(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "x");
    QCOMPARE(int(h.tensors.size()), 2);
    QCOMPARE(h.dataOffset, std::uint64_t(8 + header.size() + 3));
  }

  void fileErrorsNameTheFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("cut.safetensors").toStdString();
    const std::string full =
        makeFile(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", std::string(16, '\0'));
    std::ofstream(path, std::ios::binary) << full.substr(0, full.size() - 5);
    try {
      SafetensorsFile f(path);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(path)), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, SafetensorsFile(dir.filePath("absent.safetensors").toStdString()));
    QVERIFY_THROWS_EXCEPTION(InputError, SafetensorsFile(dir.path().toStdString()));  // a folder
  }

  void unalignedF32IsCopied() {
    // A header of odd length puts the data area at an odd address: the reader must copy, not cast.
    QTemporaryDir dir;
    const std::string path = dir.filePath("odd.safetensors").toStdString();
    const float v[2] = {1.5f, -2.25f};
    std::ofstream(path, std::ios::binary) << makeFile(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} )",
                                                      std::string(reinterpret_cast<const char*>(v), 8));
    SafetensorsFile f(path);
    const float* p = f.floats(*f.find("a"));
    QCOMPARE(p[0], 1.5f);
    QCOMPARE(p[1], -2.25f);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
