// checked-paths.h (issue 18.2): the opened object, not the path, is checked against the roots,
// and what the pty helper is given names that object whatever the path says later.
#include "supervisor/run/checked-paths.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace rea::supervisor {
namespace {

namespace fs = std::filesystem;

struct CheckedTree {
  std::string base;
  CheckedTree() {
    char pattern[] = "/tmp/rea-checked-XXXXXX";
    base = mkdtemp(pattern);
    fs::create_directories(base + "/root/bin");
    fs::create_directories(base + "/outside");
    std::ofstream(base + "/root/bin/tool") << "inside";
    std::ofstream(base + "/outside/tool") << "outside";
    fs::create_directory_symlink(base + "/outside", base + "/root/away");
  }
  ~CheckedTree() { fs::remove_all(base); }
  evidence::OperatorPolicy policy() const {
    evidence::OperatorPolicy policy;
    std::string root = fs::canonical(base + "/root");
    policy.executableRoots = {{root, root, root}};
    policy.workingRoots = {{root, root, root}};
    return policy;
  }
};

std::string checkedContentOf(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(CheckedPaths, TheOpenedObjectIsUsedEvenAfterItsPathChanges) {
  CheckedTree tree;
  auto result = openCheckedPaths(tree.policy(), tree.base + "/root/bin/tool", tree.base + "/root");
  ASSERT_FALSE(result.error) << result.error->message;
  ASSERT_TRUE(result.paths);
  // Swap the directory for a symlink to the outside: the checked objects stay what they were.
  fs::rename(tree.base + "/root/bin", tree.base + "/root/old-bin");
  fs::create_directory_symlink(tree.base + "/outside", tree.base + "/root/bin");
  EXPECT_EQ(checkedContentOf(result.paths->executableHere()), "inside");
  EXPECT_EQ(checkedContentOf(result.paths->executableObject()), "inside");
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(result.paths->workingDirectoryObject().c_str(), resolved), nullptr);
  EXPECT_EQ(std::string(resolved), fs::canonical(tree.base + "/root").string());
}

TEST(CheckedPaths, AnObjectOutsideTheRootsIsDeniedWithThePolicyError) {
  CheckedTree tree;
  auto executable =
      openCheckedPaths(tree.policy(), tree.base + "/root/away/tool", tree.base + "/root");
  ASSERT_TRUE(executable.error);
  EXPECT_EQ(executable.error->category, "permission_required");
  auto directory =
      openCheckedPaths(tree.policy(), tree.base + "/root/bin/tool", tree.base + "/root/away");
  ASSERT_TRUE(directory.error);
  EXPECT_EQ(directory.error->category, "permission_required");
  auto missing = openCheckedPaths(tree.policy(), tree.base + "/root/bin/none", tree.base + "/root");
  ASSERT_TRUE(missing.error);
  EXPECT_NE(missing.error->message.find("does not exist"), std::string::npos)
      << missing.error->message;
}

}  // namespace
}  // namespace rea::supervisor
