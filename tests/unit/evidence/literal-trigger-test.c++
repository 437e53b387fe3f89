#include "evidence/literal-trigger.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

TEST(LiteralTrigger, FiresOnASingleOccurrenceInOneChunk) {
  LiteralTrigger trigger("ready", 1);
  EXPECT_FALSE(trigger.feed("booting...\r\n"));
  EXPECT_TRUE(trigger.feed("server ready\r\n"));
  EXPECT_TRUE(trigger.fired());
  EXPECT_EQ(trigger.count(), 1u);
  EXPECT_FALSE(trigger.feed("ready again"));  // fires once
  EXPECT_EQ(trigger.count(), 2u);
}

TEST(LiteralTrigger, CountsAnOccurrenceSplitAcrossTwoChunks) {
  LiteralTrigger trigger("ready", 1);
  EXPECT_FALSE(trigger.feed("server rea"));
  EXPECT_EQ(trigger.tail(), u" rea");
  EXPECT_TRUE(trigger.feed("dy"));
  EXPECT_EQ(trigger.count(), 1u);
  EXPECT_EQ(trigger.tail(), u"eady");
}

TEST(LiteralTrigger, NeedsTheConfiguredOccurrenceCount) {
  LiteralTrigger trigger("ok", 3);
  EXPECT_FALSE(trigger.feed("ok ok"));
  EXPECT_EQ(trigger.count(), 2u);
  EXPECT_FALSE(trigger.feed(" o"));
  EXPECT_FALSE(trigger.fired());
  EXPECT_TRUE(trigger.feed("k"));
  EXPECT_EQ(trigger.count(), 3u);
}

TEST(LiteralTrigger, CountsNonOverlappingOccurrencesWithinAChunk) {
  LiteralTrigger trigger("aa", 3);
  EXPECT_FALSE(trigger.feed("aaaa"));  // two, not three
  EXPECT_EQ(trigger.count(), 2u);
}

TEST(LiteralTrigger, DoubleCountsAnOccurrenceOverlappingTheTailAsTheBaselineDoes) {
  // "xaba" + "ba" is "xababa": one non-overlapping "aba", but the carried tail "ba" joins the
  // next chunk into "baba", which holds another. The baseline counts two; so do we.
  LiteralTrigger trigger("aba", 2);
  EXPECT_FALSE(trigger.feed("xaba"));
  EXPECT_EQ(trigger.count(), 1u);
  EXPECT_EQ(trigger.tail(), u"ba");
  EXPECT_TRUE(trigger.feed("ba"));
  EXPECT_EQ(trigger.count(), 2u);

  // Repeated single letters: "aa" then "a" counts two in "aaa".
  LiteralTrigger repeated("aa", 2);
  EXPECT_FALSE(repeated.feed("aa"));
  EXPECT_TRUE(repeated.feed("a"));
}

TEST(LiteralTrigger, AOneCharacterValueCarriesNoTail) {
  LiteralTrigger trigger("$", 2);
  EXPECT_FALSE(trigger.feed("$ "));
  EXPECT_EQ(trigger.tail(), u"");
  EXPECT_TRUE(trigger.feed("$"));
}

TEST(LiteralTrigger, CutsTheTailInUtf16CodeUnitsEvenInsideASurrogatePair) {
  // Value "x😀y" is 4 code units, so the tail keeps 3: after "ab😀c" it is D83D DE00 'c'.
  LiteralTrigger trigger("x\xF0\x9F\x98\x80y", 1);
  EXPECT_FALSE(
      trigger.feed("ab\xF0\x9F\x98\x80"
                   "c"));
  EXPECT_EQ(trigger.tail(), std::u16string(u"\U0001F600c"));
  // Now a chunk that leaves half a pair at the front of the tail: "😀cd" -> tail DE00 'c' 'd'.
  EXPECT_FALSE(trigger.feed("d"));
  std::u16string expected;
  expected.push_back(0xDE00);
  expected += u"cd";
  EXPECT_EQ(trigger.tail(), expected);
  // The orphaned low surrogate matches nothing; an occurrence split before the astral
  // character still counts.
  EXPECT_FALSE(trigger.feed("x"));
  EXPECT_TRUE(trigger.feed("\xF0\x9F\x98\x80y"));
  EXPECT_EQ(trigger.count(), 1u);
}

TEST(LiteralTrigger, MatchesAstralCharactersCarriedInTheTail) {
  LiteralTrigger trigger("\xF0\x9F\x98\x80\xF0\x9F\x98\x81!", 1);  // 😀😁! = 5 code units
  EXPECT_FALSE(trigger.feed("see \xF0\x9F\x98\x80\xF0\x9F\x98\x81"));
  EXPECT_EQ(trigger.tail(), u"\U0001F600\U0001F601");
  EXPECT_TRUE(trigger.feed("!"));
}

TEST(LiteralTrigger, DecodesIllFormedBytesAsReplacementCharacters) {
  EXPECT_EQ(toUtf16("a\xFF"
                    "b"),
            u"a\uFFFDb");
  EXPECT_EQ(toUtf16("\xE9\x9B"), u"\uFFFD");
  EXPECT_EQ(toUtf16("\xF0\x9F\x98\x80"), u"\U0001F600");
  LiteralTrigger trigger("\xEF\xBF\xBD", 1);  // a literal U+FFFD matches a decoded bad byte
  EXPECT_TRUE(trigger.feed("x\xFF"));
}

TEST(LiteralTrigger, AcceptsPreDecodedChunks) {
  LiteralTrigger trigger("done", 1);
  EXPECT_FALSE(trigger.feed(std::u16string_view(u"do")));
  EXPECT_TRUE(trigger.feed(std::u16string_view(u"ne")));
}

}  // namespace
}  // namespace rea::evidence
