// The general tokenizer.json engine (hf_tokenizer.h) against Hugging Face's own encodings of the real
// Llama-3.1, Qwen3, Mixtral and Gemma-3 files (tests/reference/make_tokenizer_reference.js): ids and
// tokens must match exactly, and offsets too, compared in Unicode code points of the original text
// (the binding's convention; a token made of part of a character spans the whole character; special
// tokens from the template have empty spans where Hugging Face reports (0, 0)). Also the regex engine,
// the components missing from the real files, bad files and odd texts.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <memory>
#include <tuple>

#include "core/base/errors.h"
#include "core/base/json_file.h"
#include "core/text/hf_regex.h"
#include "core/text/hf_tokenizer.h"
#include "core/text/token_display.h"
#include "core/text/tokenizer_loader.h"
#include "core/text/utf8.h"
#include "tests/core/text/tokenizer_test_util.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

Q_DECLARE_METATYPE(QList<int>)

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

/// The real files live outside the repository (../shared/fixtures); tests that need them skip without.
bool haveShared() { return fileExists(sharedFixture("mixtral/tokenizer.json.gz")); }

const HfTokenizer& fixtureTokenizer(const std::string& name) {
  static std::map<std::string, std::unique_ptr<HfTokenizer>> cache;
  std::unique_ptr<HfTokenizer>& t = cache[name];
  if (!t) {
    // gpt2 and bert are the small files committed in tests/fixtures, the others the real shared ones.
    const std::string dir = name == "gpt2"   ? test::fixture("lm-buddy/fake_gpt2/")
                            : name == "bert" ? test::fixture("lm-buddy/bert_tiniest/")
                                             : sharedFixture(name + "/");
    const nlohmann::json j = readMaybeGzipped(dir + "tokenizer.json");
    const nlohmann::json cfg = readMaybeGzipped(dir + "tokenizer_config.json");
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

std::string typeOnly(const std::string& type) { return nlohmann::json{{"type", type}}.dump(); }

/// A Split pre-tokenizer on a {"String"|"Regex": pattern}.
std::string splitPre(const std::string& kind, const std::string& pattern, const std::string& behavior = "Isolated") {
  return nlohmann::json{{"type", "Split"}, {"pattern", {{kind, pattern}}}, {"behavior", behavior}, {"invert", false}}
      .dump();
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
    for (const char* name : {"llama3_1", "qwen3", "mixtral", "gemma3", "gpt2", "bert"}) {
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
    if (name != "gpt2" && name != "bert" && !haveShared()) QSKIP("../shared/fixtures/hf-tokenizers is missing");
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

  /// The transformers.js vectors (made by Hugging Face code) for GPT-2 and bert-base-uncased.
  void transformersJs_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("tokens");
    QTest::addColumn<QList<int>>("ids");
    for (const auto& [name, file, key] :
         {std::tuple{"gpt2", "gpt2", "Xenova/gpt2"}, std::tuple{"bert", "bert_uncased", "Xenova/bert-base-uncased"}}) {
      const nlohmann::json v =
          readJsonFile(test::fixture(std::string("transformers.js/") + file + "_tokenization_vectors.json"));
      for (const auto& [caseName, c] : v[key].items())
        if (!c.contains("text_pair"))  // the engine encodes single sequences only
          QTest::addRow("%s %s", name, caseName.c_str()) << QString(name) << QString::fromStdString(c["text"])
                                                         << test::jsonStrings(c["tokens"]) << test::toQInts(c["ids"]);
    }
  }

  void transformersJs() {
    QFETCH(QString, name);
    QFETCH(QString, text);
    QFETCH(QStringList, tokens);
    QFETCH(QList<int>, ids);
    const HfTokenizer& tok = fixtureTokenizer(name.toStdString());
    QCOMPARE(tokensOf(tok.encode(text.toStdString(), false)), tokens);
    // GPT-2's vectors list ids without special tokens, BERT's with [CLS] … [SEP].
    const TokenizedText t = tok.encode(text.toStdString(), name == "bert");
    QCOMPARE(QList<int>(t.ids.begin(), t.ids.end()), ids);
  }

  void badFiles_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");  // part of the expected message
    auto row = [](const char* name, const std::string& json, const char* message) {
      QTest::newRow(name) << QString::fromStdString(json) << QString(message);
    };
    row("unknown pre-tokenizer", smallFile("null", typeOnly("UnicodeScripts")),
        "tokenizer.json: pre_tokenizer type \"UnicodeScripts\" is not supported");
    row("unknown normalizer", smallFile(typeOnly("Mystery"), "null"), "normalizer type \"Mystery\" is not supported");
    row("precompiled without charsmap", smallFile(typeOnly("Precompiled"), "null"),
        "normalizer Precompiled needs a base64 string \"precompiled_charsmap\"");
    row("malformed regex", smallFile("null", splitPre("Regex", "(ab|c")), "regex \"(ab|c\": missing ')'");
    row("script property", smallFile("null", splitPre("Regex", "\\p{Han}+")), "unsupported property \\p{Han}");
    row("look-behind", smallFile("null", splitPre("Regex", "(?<=a)b")), "regex \"(?<=a)b\"");
    // 20,000 nested groups overflowed the parser's stack (SIGSEGV); 500 levels is the limit, named, and the
    // message shows the pattern's first 120 characters only.
    const std::string deep = std::string(20000, '(') + "a" + std::string(20000, ')');
    row("groups nested 20,000 deep", smallFile("null", splitPre("Regex", deep)), "groups nested more than 500 deep");
    const std::string fine = std::string(500, '(') + "a" + std::string(500, ')');
    row("501 levels", smallFile("null", splitPre("Regex", "(" + fine + ")")), "regex \"((((");
    row("bad behavior", smallFile("null", splitPre("String", "a", "Sideways")), "split behavior \"Sideways\"");
    row("merge with a missing token", smallFile("null", "null", ", \"merges\": [\"a b\", \"ab zz\"]"),
        "merge 1: merge \"ab zz\" uses a token that is not in the vocabulary");
    row("word level", "{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\": 0}}}",
        "model type \"WordLevel\" is not supported");
    row("dropout", smallFile("null", "null", ", \"dropout\": 0.1"), "dropout");
    nlohmann::json pp = nlohmann::json::parse(smallFile("null", "null"));
    pp["post_processor"] = {{"type", "Mystery"}};
    row("unknown post-processor", pp.dump(), "post_processor type \"Mystery\" is not supported");
    row("vocab not an object", "{\"model\": {\"type\": \"BPE\", \"vocab\": [1, 2], \"merges\": []}}",
        "model.vocab is not an object");
    row("merges missing", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}", "tokenizer.json");
  }

  void badFiles() {
    QFETCH(QString, json);
    QFETCH(QString, message);
    try {
      fromText(json.toStdString());
      QFAIL("no InputError");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(message), e.what());
      QVERIFY2(QString(e.what()).startsWith("tokenizer.json"), e.what());
    }
  }

  /// The small file's pipeline: merges by rank, unknown characters fused, added tokens before the model.
  void smallPipeline() {
    const auto tok = fromText(smallFile("null", "null"));
    const TokenizedText t = tok->encode("abcab<s>xyz", false);
    QCOMPARE(tokensOf(t), QStringList({"abc", "ab", "<s>", "<unk>", "<unk>", "<unk>"}));
    const auto fused = fromText(smallFile("null", "null", R"(, "fuse_unk": true)"));
    QCOMPARE(tokensOf(fused->encode("xyza", false)), QStringList({"<unk>", "a"}));
    QCOMPARE(fused->encode("xyza", false).tokens[0].byteEnd, 3);
    QCOMPARE(tok->tokenToId("<s>"), 7);
    QCOMPARE(tok->tokenToId("nope"), -1);
    QCOMPARE(QString::fromStdString(tok->idToToken(4)), QString("abc"));
    QCOMPARE(QString::fromStdString(tok->idToToken(99)), QString());
    QCOMPARE(tok->specialIds(), std::vector<int>({7}));
    QCOMPARE(tok->vocabSize(), 11);
  }

  /// Without a template, tokenizer_config.json's add_bos_token / add_eos_token add bos / eos.
  void configAddsBosEos() {
    const std::string file = smallFile("null", "null");
    QCOMPARE(tokensOf(fromText(file)->encode("ab", true)), QStringList({"ab"}));
    const auto t = fromText(file, R"({"add_bos_token": true, "bos_token": "<s>", "add_eos_token": true,
                                      "eos_token": {"content": "<unk>"}})");
    const TokenizedText enc = t->encode("ab", true);
    QCOMPARE(tokensOf(enc), QStringList({"<s>", "ab", "<unk>"}));
    QCOMPARE(enc.tokens[0].byteEnd, 0);
    QCOMPARE(enc.tokens[2].byteBegin, 2);
    QCOMPARE(tokensOf(t->encode("ab", false)), QStringList({"ab"}));
  }

  void emptyAndInvalidText() {
    if (!haveShared()) QSKIP("../shared/fixtures/hf-tokenizers is missing");
    for (const char* name : {"llama3_1", "qwen3", "mixtral", "gemma3"}) {
      const HfTokenizer& tok = fixtureTokenizer(name);
      QVERIFY(tok.encode("", false).tokens.empty());
      const std::string bad = "a\xff\xfe b\xc3(\xe4\xb8";
      const TokenizedText t = tok.encode(bad, false);
      QVERIFY(!t.tokens.empty());
      QCOMPARE(t.ids.size(), t.tokens.size());
      int covered = 0;  // spans stay inside the original bytes, in order, and cover them all
      for (const Token& k : t.tokens) {
        QVERIFY(k.byteBegin >= 0 && k.byteBegin <= k.byteEnd && k.byteEnd <= static_cast<int>(bad.size()));
        QVERIFY2(k.byteBegin <= covered, name);
        covered = std::max(covered, k.byteEnd);
      }
      QCOMPARE(covered, static_cast<int>(bad.size()));
    }
  }

  void loaderReadsFolder() {
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    QVERIFY_THROWS_EXCEPTION(InputError, loadTokenizerJsonEngine(d));
    {
      std::ofstream(d + "/tokenizer.json") << smallFile("null", "null");
      std::ofstream(d + "/tokenizer_config.json") << R"({"add_bos_token": true, "bos_token": "<s>"})";
    }
    const auto t = loadTokenizerJsonEngine(d);
    QCOMPARE(t->encode("abc", true).ids, std::vector<int>({7, 4}));
    std::ofstream(d + "/tokenizer.json") << "{not json";
    try {
      loadTokenizerJsonEngine(d);
      QFAIL("no InputError");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("tokenizer.json"), e.what());
    }
  }

  void regexEngine() {
    auto find = [](const std::string& pattern, const std::string& text) {
      QStringList out;
      const std::u32string s = toU32(text);
      for (const auto& [b, e] : HfRegex(pattern, "test").findAll(s)) {
        std::string m;
        for (std::size_t k = b; k < e; ++k) utf8::append(m, s[k]);
        out << QString::fromStdString(m);
      }
      return out;
    };
    QCOMPARE(find("a+?b|a", "aaab a"), QStringList({"aaab", "a"}));  // leftmost-first, lazy
    // A lazy loop over a body that matches empty ends (it once looped forever): zero iterations fail at "$", one
    // iteration's greedy K* takes "KK", as a backtracking engine (Oniguruma) does.
    QCOMPARE(find("(K*)*?$", "KK"), QStringList({"KK"}));
    QCOMPARE(find(R"(\s+(?!\S)|\s+)", "a   b"), QStringList({"  ", " "}));
    QCOMPARE(find(R"((?i:ab)c)", "ABc ABC abc"), QStringList({"ABc", "abc"}));
    QCOMPARE(find(R"(\p{N}{1,3})", "1234567"), QStringList({"123", "456", "7"}));
    QCOMPARE(find(R"(^\w|\w$)", "ab cd\nef"), QStringList({"a", "d", "e", "f"}));
    QCOMPARE(find(R"([^\p{L}\s]+)", "é1, 中2"), QStringList({"1,", "2"}));
    QCOMPARE(find(R"(\x{4E2D}|\u6587)", "中文"), QStringList({"中", "文"}));
    // Nested stars on a long run of a's that never ends in b: exponential for a plain backtracker, linear
    // with the memo of failed states (bench/bench_tokenizer.cpp times the real patterns).
    QCOMPARE(find("(a*)*b", std::string(20000, 'a')), QStringList());
  }

  void displayText() {
    QCOMPARE(QString::fromStdString(tokenDisplayText("\xC4\xA0"
                                                     "cat")),
             QString(" cat"));                                                                        // Ġcat
    QCOMPARE(QString::fromStdString(tokenDisplayText("\xC4\x8A")), QString("\n"));                    // Ċ
    QCOMPARE(QString::fromStdString(tokenDisplayText("\xC3\xA4\xC2\xB8\xC5\x83")), QString("中"));    // ä¸Ń
    QCOMPARE(QString::fromStdString(tokenDisplayText("\xC3\xA4\xC2\xB8")), QString("\uFFFD\uFFFD"));  // part of 中
    QCOMPARE(QString::fromStdString(tokenDisplayText("\xE2\x96\x81"
                                                     "cat")),
             QString(" cat"));  // ▁cat
    QCOMPARE(QString::fromStdString(tokenDisplayText("<0x0A>")), QString("\n"));
    QCOMPARE(QString::fromStdString(tokenDisplayText("<0xE4>")), QString("\uFFFD"));
    QCOMPARE(QString::fromStdString(tokenDisplayText("\xC3\xA9", TokenDisplayStyle::Metaspace)), QString("é"));
    QCOMPARE(fixtureTokenizer("gpt2").displayStyle(), TokenDisplayStyle::ByteLevel);
    QCOMPARE(fixtureTokenizer("bert").displayStyle(), TokenDisplayStyle::Metaspace);
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTokenizerHfJson)
#include "test_tokenizer_hf_json.moc"
