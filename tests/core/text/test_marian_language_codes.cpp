// Marian's language codes (core/text/marian_language_codes.h): Python's re ">>.+<<" worked by hand on small texts,
// the same matches as the former scan (one rfind per ">>", kept here as the reference) on 3,000 random texts, and
// texts of 4 MB whose former scan was quadratic (a line of ">" without "<<": 8·10¹² steps) finish.
#include <QtTest>

#include <random>
#include <string>

#include "core/text/marian_language_codes.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

/// The former implementation, quadratic on a long line of ">>" without "<<": the reference for the new one.
Matches formerScan(std::string_view text, std::size_t begin, std::size_t end) {
  Matches out;
  for (std::size_t p = begin; p + 1 < end;) {
    if (text[p] != '>' || text[p + 1] != '>') {
      ++p;
      continue;
    }
    std::size_t lineEnd = text.find('\n', p);
    lineEnd = lineEnd == std::string_view::npos ? end : std::min(lineEnd, end);
    const std::size_t close = lineEnd >= 2 ? text.rfind("<<", lineEnd - 2) : std::string_view::npos;
    if (close == std::string_view::npos || close < p + 3) {
      ++p;
      continue;
    }
    out.emplace_back(p, close + 2);
    p = close + 2;
  }
  return out;
}

Matches all(std::string_view text) { return marianLanguageCodes(text, 0, text.size()); }

}  // namespace

class TestMarianLanguageCodes : public QObject {
  Q_OBJECT

 private slots:
  void byHand() {
    QCOMPARE(all(">>fra<< the cat"), (Matches{{0, 7}}));
    QCOMPARE(all("a >>x<< b >>y<< c"), (Matches{{2, 15}}));  // greedy: the first ">>" to the last "<<"
    QCOMPARE(all(">><<"), Matches{});                        // '.+' needs a character
    QCOMPARE(all(">>><<"), (Matches{{0, 5}}));
    QCOMPARE(all(">>a<<\n>>b<<"), (Matches{{0, 5}, {6, 11}}));  // '.' stops at a line break
    QCOMPARE(all(">>a\n<<"), Matches{});
    QCOMPARE(all("<<>>a<<"), (Matches{{2, 7}}));
    QCOMPARE(all(">>>>"), Matches{});
    QCOMPARE(all(""), Matches{});
    // Within [begin, end): the code "<<" past `end` is not seen.
    const std::string t = "xx >>de<< yy";
    QCOMPARE(marianLanguageCodes(t, 3, 9), (Matches{{3, 9}}));
    QCOMPARE(marianLanguageCodes(t, 3, 8), Matches{});
    QCOMPARE(marianLanguageCodes(t, 4, t.size()), Matches{});
  }

  /// Random texts over {'>', '<', 'a', '\n'} and random ranges: the same matches as the former scan.
  void sameAsTheFormerScan() {
    std::mt19937 rng(3);
    const char alphabet[] = {'>', '<', 'a', '\n', '>', '<'};
    for (int k = 0; k < 3000; ++k) {
      std::string text(rng() % 40, ' ');
      for (char& c : text) c = alphabet[rng() % 6];
      const std::size_t begin = text.empty() ? 0 : rng() % (text.size() + 1);
      const std::size_t end = begin + rng() % (text.size() - begin + 1);
      QCOMPARE(marianLanguageCodes(text, begin, end), formerScan(text, begin, end));
    }
  }

  /// 4 MB lines: linear, so they take milliseconds (the former scan: one rfind over the line per ">").
  void longLinesAreLinear() {
    const std::string arrows(std::size_t(4) << 20, '>');
    QCOMPARE(all(arrows), Matches{});
    QCOMPARE(all(arrows + "<<"), (Matches{{0, arrows.size() + 2}}));
    std::string lines;
    for (int i = 0; i < 500000; ++i) lines += ">>a<<\n";
    QCOMPARE(all(lines).size(), std::size_t(500000));
    QCOMPARE(all(lines)[499999], (std::pair<std::size_t, std::size_t>{6 * 499999, 6 * 499999 + 5}));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestMarianLanguageCodes)
#include "test_marian_language_codes.moc"
