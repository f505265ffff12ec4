// Pins carried through an edit of the text (issue 31): a pin on token 7 moved to whatever token 7 was after a paste.
// Tokens here are the words between single spaces, their spans counted by hand.
#include <QtTest>

#include "core/session/token_pins.h"
#include "tests/harness/test_registry.h"

using namespace attnlab;

namespace {

std::vector<Token> words(const std::string& text) {
  std::vector<Token> out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find(' ', begin);
    if (end == std::string::npos) end = text.size();
    Token t;
    t.text = text.substr(begin, end - begin);
    t.byteBegin = static_cast<int>(begin);
    t.byteEnd = static_cast<int>(end);
    out.push_back(t);
    begin = end + 1;
  }
  return out;
}

PinsAfterEdit carry(std::vector<int> pins, const std::string& from, const std::string& to) {
  return pinsAfterEdit(pins, from, words(from), to, words(to));
}

}  // namespace

class TestTokenPins : public QObject {
  Q_OBJECT
 private slots:
  void aPinMovesWithItsToken() {
    // "sat" is token 2; two words typed before it make it token 4.
    const PinsAfterEdit r = carry({2}, "the cat sat on the mat", "the big old cat sat on the mat");
    QCOMPARE(r.pins, std::vector<int>{4});
    QVERIFY(r.dropped.empty());
  }

  void typingAfterTheTextKeepsThePin() {
    const PinsAfterEdit r = carry({2, 5}, "the cat sat on the mat", "the cat sat on the mat today");
    QCOMPARE(r.pins, (std::vector<int>{2, 5}));
  }

  void aChangedTokenLosesItsPin() {
    // "cat" typed on to "cats": a token of other bytes. "mat" (token 5) is after the edit and stays 5.
    const PinsAfterEdit r = carry({1, 5}, "the cat sat on the mat", "the cats sat on the mat");
    QCOMPARE(r.pins, std::vector<int>{5});
    QCOMPARE(r.dropped, std::vector<std::string>{"cat"});
  }

  void aDeletedTokenLosesItsPinAndTheRestMoveBack() {
    const PinsAfterEdit r = carry({1, 5}, "the cat sat on the mat", "the sat on the mat");
    QCOMPARE(r.pins, std::vector<int>{4});
    QCOMPARE(r.dropped, std::vector<std::string>{"cat"});
  }

  void aNewTextDropsEveryPin() {
    const PinsAfterEdit r = carry({0, 3}, "the cat sat on the mat", "a dog ran");
    QVERIFY(r.pins.empty());
    QCOMPARE(r.dropped, (std::vector<std::string>{"the", "on"}));
  }

  void aRepeatedWordIsTheOneBeforeTheEdit() {
    // Both "the" have the same text: the pinned one (token 4) is found by its bytes, moved by the paste before it.
    const PinsAfterEdit r = carry({4}, "the cat sat on the mat", "the cat sat down on the mat");
    QCOMPARE(r.pins, std::vector<int>{5});
  }

  void pinsPastTheEndWait() {
    const PinsAfterEdit r = carry({1, 40}, "the cat sat", "the cat sat down");
    QCOMPARE(r.pins, (std::vector<int>{1, 40}));
  }
};

ATTNLAB_TEST_GUILESS_MAIN(TestTokenPins)
#include "test_token_pins.moc"
