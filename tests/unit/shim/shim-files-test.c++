#include "helpers/shim/shim-files.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <kj/exception.h>

#include <gtest/gtest.h>
#include "tests/test-support.h"

namespace rea::helper {
namespace {

using rea::test::readFile;

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/rea-shim-files-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { EXPECT_EQ(system(("rm -rf '" + path + "'").c_str()), 0); }
  std::string path;
};

const std::string CLIENT = std::string(REA_BINARY_DIR) + "/bin/" + SHIM_CLIENT_BINARY_NAME;

TEST(ShimFiles, WritesOneExecutableCopyOfTheClientPerName) {
  TempDir dir;
  mode_t old = umask(0077);
  writeShimExecutables(dir.path, {"git", "npm", "a.b_c-d"}, CLIENT);
  umask(old);
  std::string client = readFile(CLIENT);
  ASSERT_GT(client.size(), 0u);
  for (const char* name : {"git", "npm", "a.b_c-d"}) {
    std::string path = dir.path + "/" + name;
    struct stat st;
    ASSERT_EQ(lstat(path.c_str(), &st), 0) << path;
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    EXPECT_EQ(st.st_nlink, 1u);  // a copy, not a link to the installed binary
    EXPECT_EQ(readFile(path), client);
  }
}

TEST(ShimFiles, SetsMode0700WhateverTheUmask) {
  TempDir dir;
  mode_t old = umask(0777);
  writeShimExecutables(dir.path, {"t"}, CLIENT);
  umask(old);
  struct stat st;
  ASSERT_EQ(stat((dir.path + "/t").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
}

TEST(ShimFiles, CreatesExclusively) {
  TempDir dir;
  std::ofstream(dir.path + "/git") << "already here";
  auto error =
      kj::runCatchingExceptions([&]() { writeShimExecutables(dir.path, {"git"}, CLIENT); });
  KJ_IF_MAYBE (e, error) {
    std::string description = e->getDescription().cStr();
    EXPECT_NE(description.find("File exists"), std::string::npos) << description;
    EXPECT_NE(description.find("git"), std::string::npos) << description;
  } else {
    ADD_FAILURE() << "an existing shim file was overwritten";
  }
  EXPECT_EQ(readFile(dir.path + "/git"), "already here");

  std::string elsewhere = dir.path + "/elsewhere";
  ASSERT_EQ(symlink(elsewhere.c_str(), (dir.path + "/npm").c_str()), 0);
  EXPECT_NE(kj::runCatchingExceptions([&]() { writeShimExecutables(dir.path, {"npm"}, CLIENT); }),
            nullptr);
  EXPECT_NE(access(elsewhere.c_str(), F_OK), 0);  // the dangling symlink was not followed
}

TEST(ShimFiles, RefusesNamesThatAreNotPlainFileNames) {
  TempDir dir;
  for (const char* name : {"", ".", "..", "a/b", "/etc"}) {
    EXPECT_NE(kj::runCatchingExceptions([&]() { writeShimExecutables(dir.path, {name}, CLIENT); }),
              nullptr)
        << name;
  }
}

TEST(ShimFiles, NamesAMissingClient) {
  TempDir dir;
  auto error = kj::runCatchingExceptions(
      [&]() { writeShimExecutables(dir.path, {"t"}, dir.path + "/no-client"); });
  KJ_IF_MAYBE (e, error) {
    EXPECT_TRUE(strstr(e->getDescription().cStr(), "no-client") != nullptr);
  } else {
    ADD_FAILURE();
  }
}

}  // namespace
}  // namespace rea::helper
