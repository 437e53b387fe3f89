// The fswatch helper's Landlock write lock (helpers/fswatch/write-lock.h): under the helper's real
// lock-down (Landlock, then NO_NEW_PRIVS and its seccomp filter) an io_uring OPENAT that would
// create or truncate is refused with EACCES while reading goes on; without Landlock the uring
// backend never opens through the ring; the binary reports which of the two it runs with.
#include "helpers/fswatch/write-lock.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <liburing.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "evidence/sha256.h"
#include "helpers/fswatch/seccomp-policy.h"
#include "helpers/fswatch/snapshot.h"
#include "tests/test-support.h"

namespace rea::helper {
namespace {

const char HELLO_SHA256[] = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

struct LockTree : rea::test::TempTree {
  LockTree() : TempTree("rea-write-lock") {
    file("a", "hello\n");
    dir("d");
    // Enough small files for the uring backend to hash them in ring batches.
    for (int i = 0; i < 300; ++i)
      file("d/f" + std::to_string(i), std::string(size_t(i) * 10, 'x'));
  }
};

// One OPENAT through a ring of our own (not the helper's restricted one: the point is what the
// kernel refuses whatever the ring allows); returns the fd or -errno.
int ringOpenat(io_uring& ring, const std::string& path, int flags) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  io_uring_prep_openat(sqe, AT_FDCWD, path.c_str(), flags, 0600);
  if (io_uring_submit_and_wait(&ring, 1) < 1) return -EIO;
  io_uring_cqe* cqe;
  if (io_uring_peek_cqe(&ring, &cqe) != 0) return -EIO;
  int result = cqe->res;
  io_uring_cqe_seen(&ring, cqe);
  return result;
}

int ringRead(io_uring& ring, int fd, char* buffer, unsigned size) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  io_uring_prep_read(sqe, fd, buffer, size, 0);
  if (io_uring_submit_and_wait(&ring, 1) < 1) return -EIO;
  io_uring_cqe* cqe;
  if (io_uring_peek_cqe(&ring, &cqe) != 0) return -EIO;
  int result = cqe->res;
  io_uring_cqe_seen(&ring, cqe);
  return result;
}

bool snapshotHashes(const LockTree& tree, RingOpen ringOpen) {
  Snapshotter snapshotter(SnapshotBackend::URING, ringOpen);
  auto result = snapshotter.take({tree.root}, SnapshotLimits{});
  auto* snapshot = std::get_if<Snapshot>(&result);
  if (snapshot == nullptr || snapshot->entries.size() != 303 || snapshot->truncated) return false;
  for (const auto& entry : snapshot->entries) {
    if (entry.type == evidence::EntryType::FILE && !entry.sha256) return false;
  }
  return snapshot->entries[1].sha256 == std::string(HELLO_SHA256);
}

// The helper's lock-down in the order lockDownFswatch (server.c++) runs it. Exit codes name the
// step that went wrong, so a failure says which.
[[noreturn]] void writeThroughTheRingUnderTheLockDown(const LockTree& tree) {
  evidence::sha256Hex("warm-up");  // the helper's prepare hook
  WriteLock lock = refuseWrites();
  if (!lock.ringMayOpen) _exit(10);
  fswatchSeccompPolicy().load();
  io_uring ring;
  if (io_uring_queue_init(8, &ring, 0) != 0) _exit(11);
  if (ringOpenat(ring, tree.at("created"), O_CREAT | O_WRONLY | O_CLOEXEC) != -EACCES) _exit(12);
  if (ringOpenat(ring, tree.at("d/created"), O_CREAT | O_RDONLY | O_CLOEXEC) != -EACCES) _exit(13);
  if (ringOpenat(ring, tree.at("a"), O_WRONLY | O_TRUNC | O_CLOEXEC) != -EACCES) _exit(14);
  if (ringOpenat(ring, tree.at("a"), O_RDWR | O_CLOEXEC) != -EACCES) _exit(15);
  // Reading still works, through the ring and through the helper's own snapshot code.
  int fd = ringOpenat(ring, tree.at("a"), O_RDONLY | O_CLOEXEC);
  if (fd < 0) _exit(16);
  char buffer[16] = {};
  if (ringRead(ring, fd, buffer, sizeof(buffer)) != 6 || std::string(buffer) != "hello\n") {
    _exit(17);
  }
  if (!snapshotHashes(tree, RingOpen::ALLOWED)) _exit(18);
  _exit(0);
}

TEST(FswatchWriteLock, HandlesEveryWriteRightOfTheAbiAndNoReadRight) {
  EXPECT_EQ(landlockWriteAccess(0), 0u);
  uint64_t v1 = landlockWriteAccess(1);
  EXPECT_EQ(v1, LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM);
  EXPECT_EQ(landlockWriteAccess(2), v1 | LANDLOCK_ACCESS_FS_REFER);
  uint64_t truncate = 1ULL << 14, ioctlDev = 1ULL << 15;
  EXPECT_EQ(landlockWriteAccess(3), v1 | LANDLOCK_ACCESS_FS_REFER | truncate);
  EXPECT_EQ(landlockWriteAccess(4), landlockWriteAccess(3));  // ABI 4 added network rights only
  EXPECT_EQ(landlockWriteAccess(7), landlockWriteAccess(3) | ioctlDev);
  uint64_t reading =
      LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  EXPECT_EQ(landlockWriteAccess(7) & reading, 0u);
}

TEST(FswatchWriteLock, RingOpenatCannotCreateOrTruncateUnderTheRealLockDown) {
  if (landlockAbi() == 0) GTEST_SKIP() << "Landlock is unavailable here: " << refuseWrites().detail;
  if (!uringAvailable()) GTEST_SKIP() << "io_uring is not available here";
  LockTree tree;
  EXPECT_EXIT(writeThroughTheRingUnderTheLockDown(tree), testing::ExitedWithCode(0), "");
  EXPECT_FALSE(tree.exists("created"));
  EXPECT_FALSE(tree.exists("d/created"));
  EXPECT_EQ(tree.read("a"), "hello\n");
}

[[noreturn]] void snapshotWithoutRingOpens(const LockTree& tree, bool underTheFilter) {
  evidence::sha256Hex("warm-up");
  if (underTheFilter) fswatchSeccompPolicy().load();
  _exit(snapshotHashes(tree, RingOpen::FORBIDDEN) ? 0 : 1);
}

TEST(FswatchWriteLock, WithoutLandlockTheRingNeverOpensAndPlainOpensPassTheFilter) {
  // A FORBIDDEN ring has no OPENAT among its allowed operations: had the backend opened a file
  // through it, the kernel would have answered EACCES and the snapshot would have failed.
  if (!uringAvailable()) GTEST_SKIP() << "io_uring is not available here";
  LockTree tree;
  EXPECT_TRUE(snapshotHashes(tree, RingOpen::FORBIDDEN));
  // And the plain openat calls that replace it are the read-only ones the filter allows.
  EXPECT_EXIT(snapshotWithoutRingOpens(tree, true), testing::ExitedWithCode(0), "");
}

TEST(FswatchWriteLock, TheHelperReportsItsWriteLockBesideItsBackend) {
  LockTree tree;
  std::string request = tree.at("request.json");
  std::ofstream(request) << nlohmann::json{{"roots", {tree.at("d")}}, {"backend", "uring"}}.dump();
  std::string command = REA_BINARY_DIR "/bin/rea-fswatch --standalone " + request;
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0);
  std::istringstream lines(text);
  std::string line, last;
  size_t hashed = 0;
  while (std::getline(lines, line)) {
    auto entry = nlohmann::json::parse(line)["entry"];
    hashed += entry.is_object() && entry["type"] == "file" && entry["sha256"].is_string();
    last = line;
  }
  EXPECT_EQ(hashed, 300u) << "reading works under the lock";
  auto done = nlohmann::json::parse(last)["done"];
  ASSERT_TRUE(done.is_object()) << last;
  int abi = landlockAbi();
  if (abi > 0) {
    EXPECT_EQ(done["write_lock"], "landlock ABI " + std::to_string(abi));
    EXPECT_EQ(done["ring_may_open"], true);
  } else {
    EXPECT_EQ(done["write_lock"].get<std::string>().rfind("no landlock: ", 0), 0u) << last;
    EXPECT_EQ(done["ring_may_open"], false);
  }
  if (uringAvailable()) {
    EXPECT_EQ(done["backend"], "uring");
  }
}

}  // namespace
}  // namespace rea::helper
