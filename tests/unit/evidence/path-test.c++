#include "evidence/path.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rea::evidence {
namespace {

TEST(Path, NormalisesDotAndDotDotLexically) {
  EXPECT_EQ(normalizePath("/bin/../usr/bin/env"), "/usr/bin/env");
  EXPECT_EQ(normalizePath("/usr/./bin//env"), "/usr/bin/env");
  EXPECT_EQ(normalizePath("/a/b/c/../../d"), "/a/d");
  EXPECT_EQ(normalizePath("/a/..b/c"), "/a/..b/c");  // `..b` is a name, not a parent step
}

TEST(Path, DropsTrailingSlashButKeepsTheRoot) {
  EXPECT_EQ(normalizePath("/usr/bin/"), "/usr/bin");
  EXPECT_EQ(normalizePath("/"), "/");
  EXPECT_EQ(normalizePath("//"), "/");
  EXPECT_EQ(normalizePath("/./"), "/");
}

TEST(Path, StaysAtTheRootWhenClimbingAboveIt) {
  EXPECT_EQ(normalizePath("/.."), "/");
  EXPECT_EQ(normalizePath("/../../etc"), "/etc");
}

TEST(Path, KeepsRelativePathsRelative) {
  EXPECT_EQ(normalizePath("a/./b/"), "a/b");
  EXPECT_EQ(normalizePath("a/../.."), "..");
  EXPECT_EQ(normalizePath("../a/../b"), "../b");
  EXPECT_EQ(normalizePath("a/.."), ".");
  EXPECT_EQ(normalizePath(""), ".");
}

TEST(Path, ResolvesRelativePathsAgainstABase) {
  EXPECT_EQ(resolvePath("/work", "roots/../bin"), "/work/bin");
  EXPECT_EQ(resolvePath("/work/", "bin/"), "/work/bin");
  EXPECT_EQ(resolvePath("/work", "."), "/work");
  EXPECT_EQ(resolvePath("/work", "../.."), "/");
  EXPECT_EQ(resolvePath("/work", "/abs/./x"), "/abs/x");
}

TEST(Path, JoinsWithoutNormalisingForRealpath) {
  EXPECT_EQ(joinPath("/work", "link/.."), "/work/link/..");
  EXPECT_EQ(joinPath("/work/", "x"), "/work/x");
  EXPECT_EQ(joinPath("/work", "/abs"), "/abs");
}

TEST(Path, ContainsEqualPathsAndProperDescendants) {
  EXPECT_TRUE(isWithinPath("/usr/bin", "/usr/bin"));
  EXPECT_TRUE(isWithinPath("/usr/bin/env", "/usr/bin"));
  EXPECT_TRUE(isWithinPath("/usr/bin/x/y", "/usr/bin"));
  EXPECT_FALSE(isWithinPath("/usr", "/usr/bin"));
  EXPECT_FALSE(isWithinPath("/usr/binary", "/usr/bin"));
}

TEST(Path, DoesNotTreatAStringPrefixAsContainment) {
  EXPECT_FALSE(isWithinPath("/tmp", "/tm"));
  EXPECT_FALSE(isWithinPath("/tmp/x", "/tm"));
}

TEST(Path, UsesARootEndingInSlashAsIs) {
  EXPECT_TRUE(isWithinPath("/anything/at/all", "/"));
  EXPECT_TRUE(isWithinPath("/", "/"));
  EXPECT_TRUE(isWithinPath("/usr/bin/env", "/usr/bin/"));
  // Gate 2's literal rule: an unnormalised root "/usr/bin/" does not equal "/usr/bin". The policy
  // normalises roots at load, so this only matters for callers passing raw strings.
  EXPECT_FALSE(isWithinPath("/usr/bin", "/usr/bin/"));
  EXPECT_TRUE(isWithinPath(normalizePath("/usr/bin"), normalizePath("/usr/bin/")));
}

TEST(Path, MatchesThePathRelativeRuleOnNamesStartingWithDots) {
  // relative("/a", "/a/..b") is "..b": neither ".." nor "../…", so it is inside.
  EXPECT_TRUE(isWithinPath("/a/..b", "/a"));
  EXPECT_FALSE(isWithinPath("/a..b", "/a"));
}

TEST(Path, RejectsRelativeCandidatesAgainstAbsoluteRoots) {
  EXPECT_FALSE(isWithinPath("usr/bin/env", "/usr/bin"));
  EXPECT_FALSE(isWithinPath("", "/usr"));
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rea-path-test-XXXXXX");
    char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = std::filesystem::canonical(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(Path, SystemResolverFollowsSymlinks) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "real" / "sub");
  std::filesystem::create_directory_symlink(dir.path() / "real", dir.path() / "link");
  ResolvedPath resolved = systemPathResolver().realPath((dir.path() / "link/sub/..").string());
  ASSERT_TRUE(resolved.path.has_value());
  EXPECT_EQ(*resolved.path, (dir.path() / "real").string());
  EXPECT_EQ(resolved.errorNumber, 0);
}

TEST(Path, SystemResolverReportsAMissingPath) {
  TempDir dir;
  ResolvedPath resolved = systemPathResolver().realPath((dir.path() / "missing").string());
  EXPECT_FALSE(resolved.path.has_value());
  EXPECT_EQ(resolved.errorNumber, ENOENT);
  EXPECT_EQ(describePathError(ENOENT), "does not exist");
}

TEST(Path, SystemResolverReportsAFileUsedAsADirectory) {
  TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  ResolvedPath resolved = systemPathResolver().realPath((dir.path() / "file/x").string());
  EXPECT_FALSE(resolved.path.has_value());
  EXPECT_EQ(resolved.errorNumber, ENOTDIR);
  EXPECT_NE(describePathError(ENOTDIR).find("not a directory"), std::string::npos);
}

}  // namespace
}  // namespace rea::evidence
