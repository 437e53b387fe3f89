#include "evidence/utf.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

TEST(Utf, CountsUtf16CodeUnits) {
  EXPECT_EQ(utf16Length(""), 0u);
  EXPECT_EQ(utf16Length("abc"), 3u);
  EXPECT_EQ(utf16Length("\xC3\xA9"), 1u);          // é
  EXPECT_EQ(utf16Length("\xE9\x9B\xAA"), 1u);      // 雪
  EXPECT_EQ(utf16Length("\xF0\x9F\x98\x80"), 2u);  // 😀 is a surrogate pair
}

TEST(Utf, OrdersByUtf16CodeUnitsNotBytes) {
  // 😀 (U+1F600, D83D DE00) sorts before ！ (U+FF01) in UTF-16 but after it in UTF-8.
  EXPECT_LT(compareUtf16("\xF0\x9F\x98\x80", "\xEF\xBC\x81"), 0);
  EXPECT_GT(compareUtf16("\xEF\xBC\x81", "\xF0\x9F\x98\x80"), 0);
  EXPECT_LT(compareUtf16("C", "a"), 0);
  EXPECT_LT(compareUtf16("a", "ab"), 0);
  EXPECT_EQ(compareUtf16("ab", "ab"), 0);
}

TEST(Utf, ValidatesUtf8) {
  EXPECT_TRUE(isValidUtf8("plain \xE9\x9B\xAA \xEF\xBF\xBD"));
  EXPECT_FALSE(isValidUtf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(isValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(isValidUtf8("\xE9\x9B"));          // truncated
  EXPECT_FALSE(isValidUtf8("\xF5\x80\x80\x80"));  // above U+10FFFF
}

TEST(Utf, KeepsIncompleteTailForNextRead) {
  EXPECT_EQ(completeUtf8Prefix("abc"), 3u);
  EXPECT_EQ(completeUtf8Prefix("ab\xE9\x9B"), 2u);
  EXPECT_EQ(completeUtf8Prefix("ab\xE9"), 2u);
  EXPECT_EQ(completeUtf8Prefix("ab\xE9\x9B\xAA"), 5u);
  EXPECT_EQ(completeUtf8Prefix("ab\xF0\x9F\x98"), 2u);
  EXPECT_EQ(completeUtf8Prefix("ab\xFF"), 3u);  // invalid, not incomplete: emit as is
}

TEST(Utf, SanitizesLikeAWhatwgDecoder) {
  EXPECT_EQ(sanitizeUtf8("a\xFF"
                         "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(sanitizeUtf8("\xE9\x9B"
                         "x"),
            "\xEF\xBF\xBD"
            "x");
  EXPECT_EQ(sanitizeUtf8("ok \xE9\x9B\xAA"), "ok \xE9\x9B\xAA");
}

}  // namespace
}  // namespace rea::evidence
