// The fswatch helper's filter: its golden listing, real snapshots under it, and what it kills.
#include "helpers/fswatch/seccomp-policy.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "evidence/sha256.h"
#include "helpers/fswatch/snapshot.h"
#include "tests/test-support.h"

namespace rea::helper {
namespace {

using rea::test::readFile;

TEST(FswatchSeccompPolicy, MatchesTheGoldenFile) {
  // A policy change must show up as a readable diff of tests/data/seccomp/fswatch.txt.
  auto golden = readFile(REA_SOURCE_DIR "/tests/data/seccomp/fswatch.txt");
  EXPECT_EQ(std::string(fswatchSeccompPolicy().describe().cStr()), golden);
}

TEST(FswatchSeccompPolicy, TheBinaryPrintsTheSamePolicy) {
  FILE* pipe = popen(REA_BINARY_DIR "/bin/rea-fswatch --seccomp-policy", "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(text, readFile(REA_SOURCE_DIR "/tests/data/seccomp/fswatch.txt"));
}

[[noreturn]] void snapshotUnderTheFilter(const std::string& root, SnapshotBackend backend) {
  evidence::sha256Hex("warm-up");  // what the helper's prepare hook does
  fswatchSeccompPolicy().load();
  Snapshotter snapshotter(backend);
  bool ok = true;
  for (int round = 0; round < 2; ++round) {  // the ring is reused by the second snapshot
    auto result = snapshotter.take({root}, SnapshotLimits{});
    auto* snapshot = std::get_if<Snapshot>(&result);
    ok = ok && snapshot != nullptr && snapshot->entries.size() == 303 && !snapshot->truncated &&
         snapshot->entries[1].sha256 ==
             std::string(
                 "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");  // "hello\n"
  }
  _exit(ok ? 0 : 1);
}

TEST(FswatchSeccompPolicy, RealSnapshotsRunUnderTheFilterWithBothBackends) {
  rea::test::TempTree tree("rea-fswatch-seccomp");
  tree.file("a", "hello\n");
  ASSERT_EQ(mkdir((tree.root + "/d").c_str(), 0755), 0);
  for (int i = 0; i < 300; ++i)
    tree.file("d/f" + std::to_string(i), std::string(size_t(i) * 10, 'x'));
  EXPECT_EXIT(snapshotUnderTheFilter(tree.root, SnapshotBackend::PLAIN), testing::ExitedWithCode(0),
              "");
  EXPECT_EXIT(snapshotUnderTheFilter(tree.root, SnapshotBackend::URING), testing::ExitedWithCode(0),
              "");
  EXPECT_EXIT(snapshotUnderTheFilter(tree.root, SnapshotBackend::AUTO), testing::ExitedWithCode(0),
              "");
}

[[noreturn]] void openForWritingUnderTheFilter(int flags) {
  fswatchSeccompPolicy().load();
  open("/tmp/rea-fswatch-seccomp-never", flags, 0600);
  _exit(0);
}

[[noreturn]] void execUnderTheFilter() {
  fswatchSeccompPolicy().load();
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  execv("/bin/true", argv);
  _exit(0);
}

[[noreturn]] void socketUnderTheFilter() {
  fswatchSeccompPolicy().load();
  socket(AF_INET, SOCK_STREAM, 0);
  _exit(0);
}

[[noreturn]] void unlinkUnderTheFilter() {
  fswatchSeccompPolicy().load();
  unlink("/tmp/rea-fswatch-seccomp-never");
  _exit(0);
}

[[noreturn]] void openDirectoryForReadingUnderTheFilter() {
  fswatchSeccompPolicy().load();
  int fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  _exit(fd >= 0 ? 0 : 1);
}

TEST(FswatchSeccompPolicy, AllowsOpeningDirectoriesForReading) {
  EXPECT_EXIT(openDirectoryForReadingUnderTheFilter(), testing::ExitedWithCode(0), "");
}

TEST(FswatchSeccompPolicy, KillsOpeningForWritingExecSocketsAndUnlink) {
  EXPECT_EXIT(openForWritingUnderTheFilter(O_WRONLY | O_CREAT), testing::KilledBySignal(SIGSYS),
              "");
  EXPECT_EXIT(openForWritingUnderTheFilter(O_RDWR), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(openForWritingUnderTheFilter(O_RDONLY | O_TRUNC), testing::KilledBySignal(SIGSYS),
              "");
  EXPECT_EXIT(openForWritingUnderTheFilter(O_RDONLY | O_CREAT), testing::KilledBySignal(SIGSYS),
              "");
  EXPECT_EXIT(openForWritingUnderTheFilter(O_TMPFILE | O_RDWR), testing::KilledBySignal(SIGSYS),
              "");
  EXPECT_EXIT(execUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(socketUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(unlinkUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
}

}  // namespace
}  // namespace rea::helper
