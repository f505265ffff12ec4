// The general tokenizer.json engine (hf_tokenizer.h) against Hugging Face's own encodings of the real
// Llama-3.1, Qwen3, Mixtral and Gemma-3 files (tests/reference/make_tokenizer_reference.js): ids and
// tokens must match exactly, and offsets too, compared in Unicode code points of the original text
// (the binding's convention; a token made of part of a character spans the whole character; special
// tokens from the template have empty spans where Hugging Face reports (0, 0)). Also the regex engine,
// the components missing from the real files, bad files and odd texts.
#include <QProcess>
#include <QtTest>

#include <chrono>
#include <map>
#include <memory>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/hf_regex.h"
#include "core/text/hf_tokenizer.h"
#include "core/text/token_display.h"
#include "core/text/tokenizer_loader.h"
#include "core/text/utf8.h"
#include "tests/core/text/tokenizer_test_util.h"

using namespace attnlab;

namespace {

std::string sharedFixture(const std::string& rel) {
  return std::string(ATTNLAB_SOURCE_DIR) + "/../shared/fixtures/hf-tokenizers/" + rel;
}

/// The file, gunzipped by the system's gzip when only the .gz is there.
nlohmann::json readMaybeGzipped(const std::string& path) {
  if (fileExists(path)) return readJsonFile(path);
  QProcess gz;
  gz.start("gzip", {"-dc", QString::fromStdString(path + ".gz")});
  if (!gz.waitForFinished(60000) || gz.exitCode() != 0) return nlohmann::json();
  const QByteArray bytes = gz.readAllStandardOutput();
  return parseJson(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), path);
}

const HfTokenizer& fixtureTokenizer(const std::string& name) {
  static std::map<std::string, std::unique_ptr<HfTokenizer>> cache;
  std::unique_ptr<HfTokenizer>& t = cache[name];
  if (!t) {
    const nlohmann::json j = readMaybeGzipped(sharedFixture(name + "/tokenizer.json"));
    const nlohmann::json cfg = readMaybeGzipped(sharedFixture(name + "/tokenizer_config.json"));
    t = HfTokenizer::fromJson(j, cfg, name + "/tokenizer.json");
  }
  return *t;
}

/// Byte offset → code point index of `text`, for comparing with the binding's offsets.
std::vector<int> codePointIndex(const std::string& text) {
  std::vector<int> idx(text.size() + 1);
  int k = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const utf8::CodePoint c = utf8::decode(text, pos);
    for (std::size_t i = pos; i < pos + c.size; ++i) idx[i] = k;
    pos += c.size;
    ++k;
  }
  idx[text.size()] = k;
  return idx;
}

std::unique_ptr<HfTokenizer> fromText(const std::string& json, const std::string& config = "{}") {
  return HfTokenizer::fromJson(nlohmann::json::parse(json), nlohmann::json::parse(config), "tokenizer.json");
}

/// A tiny byte-level-free BPE file whose vocabulary covers a, b, c, ab, abc and the word marker.
std::string smallFile(const std::string& normalizer, const std::string& pre, const std::string& extraModel = "") {
  return R"({"normalizer": )" + normalizer + R"(, "pre_tokenizer": )" + pre +
         R"(, "post_processor": null, "added_tokens": [{"id": 7, "content": "<s>", "special": true}],
  "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "▁": 5, "<unk>": 6, "<s>": 7,
  "1": 8, "2": 9, "▁a": 10}, "merges": ["a b", "ab c", "▁ a"], "unk_token": "<unk>")" +
         extraModel + "}}";
}

QStringList tokensOf(const TokenizedText& t) {
  QStringList out;
  for (const Token& tok : t.tokens) out << QString::fromStdString(tok.text);
  return out;
}

/// Ids, tokens and offsets (code points; template specials: (0, 0) there, empty here) of one case.
void compareWithReference(const HfTokenizer& tok, const nlohmann::json& c) {
  const std::string text = c["text"];
  const TokenizedText t = tok.encode(text, c["addSpecial"].get<bool>());
  QCOMPARE(tokensOf(t), test::jsonStrings(c["tokens"]));
  QCOMPARE(QList<int>(t.ids.begin(), t.ids.end()), test::toQInts(c["ids"]));
  const std::vector<int> cp = codePointIndex(text);
  for (std::size_t k = 0; k < t.tokens.size(); ++k) {
    const Token& tk = t.tokens[k];
    const int b = cp[static_cast<std::size_t>(tk.byteBegin)], e = cp[static_cast<std::size_t>(tk.byteEnd)];
    const int rb = c["offsets"][k][0], re = c["offsets"][k][1];
    if (rb == 0 && re == 0 && tk.byteBegin == tk.byteEnd) continue;
    if (b != rb || e != re)
      QFAIL(qPrintable(QString("token %1 \"%2\": span [%3, %4), Hugging Face [%5, %6)")
                           .arg(k)
                           .arg(QString::fromStdString(tk.text))
                           .arg(b)
                           .arg(e)
                           .arg(rb)
                           .arg(re)));
  }
}

const nlohmann::json& syntheticReference() {
  static const nlohmann::json j = readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/tokenizers/synthetic.json");
  return j;
}

/// Patterns Hugging Face accepts that this engine refuses by name (POSIX brackets).
bool refusedHere(const std::string& name) { return name == "regex_8"; }

}  // namespace

class TestTokenizerHfJson : public QObject {
  Q_OBJECT
 private slots:
  void reference_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("index");
    for (const char* name : {"llama3_1", "qwen3", "mixtral", "gemma3"}) {
      const nlohmann::json ref =
          readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/tokenizers/" + name + ".json");
      for (std::size_t i = 0; i < ref["cases"].size(); ++i)
        QTest::addRow("%s %d", name, static_cast<int>(i)) << QString(name) << static_cast<int>(i);
    }
  }

  void reference() {
    QFETCH(QString, name);
    QFETCH(int, index);
    static std::map<QString, nlohmann::json> refs;
    if (!refs.count(name))
      refs[name] =
          readJsonFile(std::string(ATTNLAB_TEST_DATA) + "/reference/tokenizers/" + name.toStdString() + ".json");
    const nlohmann::json& c = refs[name]["cases"][static_cast<std::size_t>(index)];
    compareWithReference(fixtureTokenizer(name.toStdString()), c);
  }

  void synthetic_data() {
    QTest::addColumn<int>("file");
    QTest::addColumn<int>("index");
    const nlohmann::json& files = syntheticReference()["tokenizers"];
    for (std::size_t f = 0; f < files.size(); ++f) {
      const std::string name = files[f]["name"];
      for (std::size_t i = 0; i < files[f]["cases"].size(); ++i)
        QTest::addRow("%s %d", name.c_str(), static_cast<int>(i)) << static_cast<int>(f) << static_cast<int>(i);
    }
  }

  /// Small made-up files: the whole encoding, the pre-tokenizer alone and the normalizer alone.
  void synthetic() {
    QFETCH(int, file);
    QFETCH(int, index);
    const nlohmann::json& f = syntheticReference()["tokenizers"][static_cast<std::size_t>(file)];
    const std::string name = f["name"];
    if (refusedHere(name)) {
      QVERIFY_THROWS_EXCEPTION(InputError, HfTokenizer::fromJson(f["json"], nlohmann::json::object(), name));
      return;
    }
    const auto tok = HfTokenizer::fromJson(f["json"], nlohmann::json::object(), name);
    const nlohmann::json& c = f["cases"][static_cast<std::size_t>(index)];
    compareWithReference(*tok, c);
    if (index % 2 != 0) return;  // the pieces do not depend on addSpecial
    const std::string text = c["text"];
    const std::vector<int> cp = codePointIndex(text);
    if (!f["pre"].is_null()) {
      std::vector<NormalizedText> pieces{NormalizedText::fromOriginal(text, 0, text.size())};
      makePreTokenizer(f["json"]["pre_tokenizer"], name)(pieces);
      QStringList got, want;
      for (const NormalizedText& p : pieces) {
        std::string s;
        for (char32_t ch : p.chars) utf8::append(s, ch);
        const ByteSpan span = p.span(0, p.chars.size());
        got << QString("%1 [%2, %3)").arg(QString::fromStdString(s)).arg(cp[span.begin]).arg(cp[span.end]);
      }
      for (const auto& p : f["pre"][static_cast<std::size_t>(index / 2)])
        want
            << QString("%1 [%2, %3)").arg(QString::fromStdString(p[0])).arg(p[1][0].get<int>()).arg(p[1][1].get<int>());
      QCOMPARE(got, want);
    }
    if (!f["normalized"].is_null()) {
      NormalizedText n = NormalizedText::fromOriginal(text, 0, text.size());
      makeNormalizer(f["json"]["normalizer"], name)(n);
      std::string s;
      for (char32_t ch : n.chars) utf8::append(s, ch);
      QCOMPARE(QString::fromStdString(s), QString::fromStdString(f["normalized"][static_cast<std::size_t>(index / 2)]));
    }
  }
};

QTEST_GUILESS_MAIN(TestTokenizerHfJson)
#include "test_tokenizer_hf_json.moc"
