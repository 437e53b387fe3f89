#include "helpers/fswatch/lexical-path.h"

#include <gtest/gtest.h>

namespace rea::helper {
namespace {

TEST(LexicalPath, NormalisesLikeNodePathResolve) {
  EXPECT_EQ(normalizePath("/a//b/./c/"), "/a/b/c");
  EXPECT_EQ(normalizePath("/a/b/../c"), "/a/c");
  EXPECT_EQ(normalizePath("/../.."), "/");
  EXPECT_EQ(normalizePath("/"), "/");
  EXPECT_EQ(normalizePath("//"), "/");
  EXPECT_EQ(normalizePath("a/b"), "/a/b");
}

TEST(LexicalPath, ResolvesRelativeTargetsAgainstTheLinksDirectory) {
  EXPECT_EQ(resolveLexically("/r/d", "x"), "/r/d/x");
  EXPECT_EQ(resolveLexically("/r/d", "../x"), "/r/x");
  EXPECT_EQ(resolveLexically("/r/d", "."), "/r/d");
  EXPECT_EQ(resolveLexically("/r/d", "../../../.."), "/");
  EXPECT_EQ(resolveLexically("/r/d", "/etc//passwd/"), "/etc/passwd");
  EXPECT_EQ(resolveLexically("/", "x/./y"), "/x/y");
}

TEST(LexicalPath, FindsParentsAndJoins) {
  EXPECT_EQ(parentPath("/a/b"), "/a");
  EXPECT_EQ(parentPath("/a"), "/");
  EXPECT_EQ(parentPath("/"), "/");
  EXPECT_EQ(joinPath("/r", "."), "/r");
  EXPECT_EQ(joinPath("/r", "a/b"), "/r/a/b");
  EXPECT_EQ(joinPath("/", "a"), "/a");
}

TEST(LexicalPath, PlacesPathsRelativeToTheRootOnWholeComponents) {
  EXPECT_EQ(rootRelative("/r", "/r"), ".");
  EXPECT_EQ(rootRelative("/r", "/r/a/b"), "a/b");
  EXPECT_EQ(rootRelative("/r", "/rx/a"), std::nullopt);  // a string prefix, not a component
  EXPECT_EQ(rootRelative("/r", "/"), std::nullopt);
  EXPECT_EQ(rootRelative("/r/a", "/r"), std::nullopt);
  EXPECT_EQ(rootRelative("/", "/"), ".");
  EXPECT_EQ(rootRelative("/", "/etc/passwd"), "etc/passwd");
}

}  // namespace
}  // namespace rea::helper
