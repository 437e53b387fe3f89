#include "helpers/fswatch/snapshot.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <seccomp.h>

#include "evidence/sha256.h"
#include "supervisor/run/temp-root.h"

namespace rea::helper {
namespace {

using evidence::EntryType;
using evidence::SnapshotEntry;

// A scratch directory under /tmp, removed with everything in it at scope exit.
class Scratch {
 public:
  Scratch() {
    char pattern[] = "/tmp/rea-fswatch-test-XXXXXX";
    if (mkdtemp(pattern) == nullptr) ADD_FAILURE() << "mkdtemp: " << strerror(errno);
    path = pattern;
    chmod(path.c_str(), 0755);  // the unprivileged tests must reach the trees inside
  }
  ~Scratch() { supervisor::removeTree(path); }

  std::string at(const std::string& rel) const { return path + "/" + rel; }

  void dir(const std::string& rel, mode_t mode = 0755) const {
    ASSERT_EQ(mkdir(at(rel).c_str(), mode), 0) << rel;
    ASSERT_EQ(chmod(at(rel).c_str(), mode), 0) << rel;
  }
  void file(const std::string& rel, const std::string& content, mode_t mode = 0644) const {
    int fd = open(at(rel).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    ASSERT_GE(fd, 0) << rel;
    ASSERT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    ASSERT_EQ(fchmod(fd, mode), 0);
    close(fd);
  }
  void link(const std::string& rel, const std::string& target) const {
    ASSERT_EQ(symlink(target.c_str(), at(rel).c_str()), 0) << rel;
  }

  std::string path;
};

struct Expected {
  std::string path;
  EntryType type;
  std::optional<std::string> sha256 = std::nullopt;
  std::optional<std::string> symlinkTarget = std::nullopt;
};

class SnapshotTest : public testing::TestWithParam<SnapshotBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == SnapshotBackend::URING && !uringAvailable()) {
      GTEST_SKIP() << "io_uring is not available here";
    }
  }

  Snapshot snap(const std::vector<std::string>& roots, SnapshotLimits limits = {},
                const SnapshotHooks& hooks = {}) {
    SnapshotResult result = takeSnapshot(roots, limits, GetParam(), hooks);
    if (auto* failure = std::get_if<SnapshotFailure>(&result)) {
      ADD_FAILURE() << failure->message();
      return {};
    }
    Snapshot snapshot = std::get<Snapshot>(std::move(result));
    EXPECT_EQ(snapshot.backendUsed, GetParam() == SnapshotBackend::URING ? SnapshotBackend::URING
                                                                         : SnapshotBackend::PLAIN);
    return snapshot;
  }
};

std::vector<std::string> paths(const Snapshot& snapshot) {
  std::vector<std::string> out;
  for (const auto& e : snapshot.entries)
    out.push_back(e.path);
  return out;
}

// Every field against the expectation and against lstat of the real file.
void expectEntries(const Snapshot& snapshot, const std::string& root,
                   const std::vector<Expected>& expected) {
  ASSERT_EQ(paths(snapshot).size(), expected.size()) << testing::PrintToString(paths(snapshot));
  for (size_t i = 0; i < expected.size(); ++i) {
    const SnapshotEntry& e = snapshot.entries[i];
    SCOPED_TRACE(expected[i].path);
    EXPECT_EQ(e.path, expected[i].path);
    EXPECT_EQ(e.type, expected[i].type);
    EXPECT_EQ(e.sha256, expected[i].sha256);
    EXPECT_EQ(e.symlinkTarget, expected[i].symlinkTarget);
    std::string rel = e.path.substr(e.path.find(':') + 1);
    struct stat st;
    ASSERT_EQ(lstat(rel == "." ? root.c_str() : (root + "/" + rel).c_str(), &st), 0);
    EXPECT_EQ(e.mode, static_cast<int64_t>(st.st_mode));
    EXPECT_EQ(e.size, static_cast<int64_t>(st.st_size));
  }
}

std::string sha(const std::string& text) {
  return evidence::sha256Hex(text);
}

TEST_P(SnapshotTest, RecordsEveryEntryTypeInPreOrderWithoutFollowingSymlinks) {
  Scratch s;
  s.dir("root");
  s.file("root/b.txt", "hello");
  s.dir("root/d");
  s.file("root/d/nested", "x", 0600);
  ASSERT_EQ(mkfifo(s.at("root/fifo").c_str(), 0644), 0);
  s.link("root/in", "d/nested");
  s.link("root/abs-in", s.at("root/d"));
  s.link("root/self", ".");
  s.link("root/d/up", "..");
  s.link("root/dangling", "d/missing");
  s.file("outside", "secret");
  s.link("root/out", "../outside");
  std::string root = s.at("root");
  Snapshot snapshot = snap({root});
  expectEntries(snapshot, root,
                {{"root_0:.", EntryType::DIRECTORY},
                 {"root_0:abs-in", EntryType::SYMLINK, std::nullopt, "d"},
                 {"root_0:b.txt", EntryType::FILE, sha("hello")},
                 {"root_0:d", EntryType::DIRECTORY},
                 {"root_0:d/nested", EntryType::FILE, sha("x")},
                 {"root_0:d/up", EntryType::SYMLINK, std::nullopt, "."},
                 {"root_0:dangling", EntryType::SYMLINK, std::nullopt, "d/missing"},
                 {"root_0:fifo", EntryType::OTHER},
                 {"root_0:in", EntryType::SYMLINK, std::nullopt, "d/nested"},
                 {"root_0:out", EntryType::SYMLINK, std::nullopt, "<outside-declared-root>"},
                 {"root_0:self", EntryType::SYMLINK, std::nullopt, "."}});
  EXPECT_TRUE(snapshot.truncated);  // the link out of the root
  EXPECT_EQ(snapshot.entries[2].mode, 0100644);
  EXPECT_EQ(snapshot.entries[4].mode, 0100600);
}

TEST_P(SnapshotTest, ATreeWithOnlyInsideLinksIsNotTruncated) {
  Scratch s;
  s.dir("root");
  s.link("root/a", "b");  // a loop: never followed, so harmless
  s.link("root/b", "a");
  s.link("root/me", "me");
  Snapshot snapshot = snap({s.at("root")});
  expectEntries(snapshot, s.at("root"),
                {{"root_0:.", EntryType::DIRECTORY},
                 {"root_0:a", EntryType::SYMLINK, std::nullopt, "b"},
                 {"root_0:b", EntryType::SYMLINK, std::nullopt, "a"},
                 {"root_0:me", EntryType::SYMLINK, std::nullopt, "me"}});
  EXPECT_FALSE(snapshot.truncated);
}

TEST_P(SnapshotTest, ContainmentIsOnWholePathComponentsOfTheDeclaredRoot) {
  Scratch s;
  s.dir("r");
  s.dir("rx");
  s.link("r/sibling", "../rx");
  s.link("r/back", "../r/.");
  // The declared root is normalised lexically before the prefix test.
  Snapshot snapshot = snap({s.path + "//r/"});
  ASSERT_EQ(snapshot.entries.size(), 3u);
  EXPECT_EQ(snapshot.entries[1].path, "root_0:back");
  EXPECT_EQ(snapshot.entries[1].symlinkTarget, ".");
  EXPECT_EQ(snapshot.entries[2].symlinkTarget, "<outside-declared-root>");
  EXPECT_TRUE(snapshot.truncated);
}

TEST_P(SnapshotTest, ARootMayItselfBeAFileOrASymlink) {
  Scratch s;
  s.file("plain", "content");
  s.link("to-self", "to-self");
  s.link("to-sibling", "plain");
  Snapshot snapshot = snap({s.at("plain"), s.at("to-self"), s.at("to-sibling")});
  ASSERT_EQ(snapshot.entries.size(), 3u);
  EXPECT_EQ(snapshot.entries[0].path, "root_0:.");
  EXPECT_EQ(snapshot.entries[0].sha256, sha("content"));
  EXPECT_EQ(snapshot.entries[1].path, "root_1:.");
  EXPECT_EQ(snapshot.entries[1].symlinkTarget, ".");
  EXPECT_EQ(snapshot.entries[2].path, "root_2:.");
  EXPECT_EQ(snapshot.entries[2].symlinkTarget, "<outside-declared-root>");
  EXPECT_TRUE(snapshot.truncated);
}

TEST_P(SnapshotTest, AMissingRootAddsNothingAndDoesNotTruncate) {
  Scratch s;
  s.dir("there");
  s.file("file", "");
  Snapshot snapshot = snap({s.at("missing"), s.at("file/below"), s.at("there")});
  EXPECT_EQ(paths(snapshot), std::vector<std::string>{"root_2:."});
  EXPECT_FALSE(snapshot.truncated);
}

TEST_P(SnapshotTest, SortsNamesByUtf16CodeUnitsThenBytes) {
  Scratch s;
  s.dir("root");
  for (const char* name : {"\xEF\xBC\x81", "\xF0\x9F\x98\x80", "a", "C", "\xFF", "\xFE", "_"}) {
    s.file(std::string("root/") + name, name);
  }
  Snapshot snapshot = snap({s.at("root")});
  EXPECT_EQ(paths(snapshot),
            (std::vector<std::string>{"root_0:.", "root_0:C", "root_0:_", "root_0:a",
                                      "root_0:\xF0\x9F\x98\x80", "root_0:\xEF\xBC\x81",
                                      "root_0:\xFE", "root_0:\xFF"}));
  EXPECT_EQ(snapshot.entries[7].sha256, sha("\xFF"));
}

TEST_P(SnapshotTest, StopsAtTheDepthLimitAndTruncates) {
  Scratch s;
  s.dir("root");
  s.dir("root/a");
  s.dir("root/a/b");
  s.dir("root/a/b/c");
  s.file("root/a/b/c/deep", "d");
  s.dir("root/e");
  s.dir("root/e/empty");
  SnapshotLimits limits;
  limits.depth = 2;
  Snapshot snapshot = snap({s.at("root")}, limits);
  EXPECT_EQ(paths(snapshot), (std::vector<std::string>{"root_0:.", "root_0:a", "root_0:a/b",
                                                       "root_0:e", "root_0:e/empty"}));
  EXPECT_TRUE(snapshot.truncated);

  // An empty directory at the limit has nothing beyond it: no truncation.
  Snapshot shallow = snap({s.at("root/e")}, limits);
  EXPECT_EQ(paths(shallow), (std::vector<std::string>{"root_0:.", "root_0:empty"}));
  EXPECT_FALSE(shallow.truncated);
}

TEST_P(SnapshotTest, SharesTheEntryBudgetAcrossRoots) {
  Scratch s;
  s.dir("one");
  s.file("one/f", "1");
  s.dir("two");
  s.file("two/g", "2");
  SnapshotLimits limits;
  limits.files = 3;
  Snapshot snapshot = snap({s.at("one"), s.at("two")}, limits);
  EXPECT_EQ(paths(snapshot), (std::vector<std::string>{"root_0:.", "root_0:f", "root_1:."}));
  EXPECT_TRUE(snapshot.truncated);

  limits.files = 4;  // exactly enough
  Snapshot exact = snap({s.at("one"), s.at("two")}, limits);
  EXPECT_EQ(exact.entries.size(), 4u);
  EXPECT_FALSE(exact.truncated);
}

TEST_P(SnapshotTest, SpendsTheByteBudgetOnlyOnHashedFilesInTraversalOrder) {
  Scratch s;
  s.dir("root");
  s.file("root/1", std::string(5, 'a'));
  s.file("root/2", std::string(10, 'b'));  // does not fit in the 7 bytes left
  s.file("root/3", std::string(5, 'c'));   // fits
  s.file("root/4", "");                    // an empty file always fits
  SnapshotLimits limits;
  limits.fileBytes = 12;
  Snapshot snapshot = snap({s.at("root")}, limits);
  ASSERT_EQ(snapshot.entries.size(), 5u);
  EXPECT_EQ(snapshot.entries[1].sha256, sha(std::string(5, 'a')));
  EXPECT_EQ(snapshot.entries[2].sha256, std::nullopt);
  EXPECT_EQ(snapshot.entries[3].sha256, sha(std::string(5, 'c')));
  EXPECT_EQ(snapshot.entries[4].sha256, sha(""));
  EXPECT_TRUE(snapshot.truncated);
}

TEST_P(SnapshotTest, AFileGrowingWhileHashedGetsNoHashAndLeavesTheBudget) {
  Scratch s;
  s.dir("root");
  s.file("root/growing", "0123456789");
  s.file("root/next", "0123456789");
  std::string growing = s.at("root/growing");
  int appended = 0;
  SnapshotHooks hooks;
  hooks.afterRead = [&](const std::string& path) {
    if (path != growing || appended++ > 0) return;
    int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "!", 1), 1);
    close(fd);
  };
  SnapshotLimits limits;
  limits.fileBytes = 10;  // enough for one file: the failed one must not spend it
  Snapshot snapshot = snap({s.at("root")}, limits, hooks);
  ASSERT_EQ(snapshot.entries.size(), 3u);
  EXPECT_EQ(snapshot.entries[1].size, 10);
  EXPECT_EQ(snapshot.entries[1].sha256, std::nullopt);
  EXPECT_EQ(snapshot.entries[2].sha256, sha("0123456789"));
  EXPECT_TRUE(snapshot.truncated);
  EXPECT_EQ(appended, 1);
}

TEST_P(SnapshotTest, AFileRemovedBeforeItIsHashedKeepsItsEntryWithoutHash) {
  Scratch s;
  s.dir("root");
  s.file("root/big", std::string(3 << 20, 'b'));  // large: hashed on its own, block by block
  s.file("root/small", "s");
  std::string big = s.at("root/big");
  SnapshotHooks hooks;
  hooks.afterRead = [&](const std::string& path) {
    if (path == big) unlink(s.at("root/small").c_str());
  };
  Snapshot snapshot = snap({s.at("root")}, {}, hooks);
  ASSERT_EQ(snapshot.entries.size(), 3u);
  EXPECT_EQ(snapshot.entries[1].sha256, sha(std::string(3 << 20, 'b')));
  EXPECT_EQ(snapshot.entries[2].path, "root_0:small");
  EXPECT_EQ(snapshot.entries[2].sha256, std::nullopt);
  EXPECT_TRUE(snapshot.truncated);
}

TEST_P(SnapshotTest, HashesLargeFilesAcrossManyReads) {
  Scratch s;
  s.dir("root");
  std::string content;
  for (int i = 0; content.size() < (5u << 20) + 7; ++i)
    content += std::to_string(i) + ",";
  s.file("root/large", content);
  s.file("root/exact", std::string(1 << 20, 'e'));  // a multiple of the read size
  Snapshot snapshot = snap({s.at("root")}, {100, 100000000, 16});
  ASSERT_EQ(snapshot.entries.size(), 3u);
  EXPECT_EQ(snapshot.entries[1].sha256, sha(std::string(1 << 20, 'e')));
  EXPECT_EQ(snapshot.entries[2].sha256, sha(content));
  EXPECT_FALSE(snapshot.truncated);
}

TEST_P(SnapshotTest, HashesFilesWhosePathIsLongerThanPathMax) {
  Scratch s;
  s.dir("root");
  // 20 levels of 240-byte names: about 4,800 bytes, beyond PATH_MAX (4096) for one open().
  int dir = open(s.at("root").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir, 0);
  std::string name(240, 'n');
  std::string rel;
  for (int level = 0; level < 20; ++level) {
    ASSERT_EQ(mkdirat(dir, name.c_str(), 0755), 0);
    int next = openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(dir);
    ASSERT_GE(next, 0);
    dir = next;
    rel += name + "/";
  }
  int fd = openat(dir, "leaf", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  close(dir);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "deep", 4), 4);
  close(fd);
  SnapshotLimits limits;
  limits.depth = 32;
  Snapshot snapshot = snap({s.at("root")}, limits);
  ASSERT_EQ(snapshot.entries.size(), 22u);
  EXPECT_EQ(snapshot.entries.back().path, "root_0:" + rel + "leaf");
  EXPECT_EQ(snapshot.entries.back().sha256, sha("deep"));
  EXPECT_FALSE(snapshot.truncated);
}

TEST_P(SnapshotTest, CancellationEndsTheSnapshotWithAFailure) {
  Scratch s;
  s.dir("root");
  s.file("root/a", "a");
  s.file("root/b", "b");
  int polls = 0;
  SnapshotHooks hooks;
  hooks.cancelled = [&]() { return ++polls > 2; };
  SnapshotResult result = takeSnapshot({s.at("root")}, {}, GetParam(), hooks);
  auto* failure = std::get_if<SnapshotFailure>(&result);
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->operation, "cancelled");
  EXPECT_EQ(failure->error, ECANCELED);
  EXPECT_EQ(failure->entry, "root_0:b");  // polls: root, a, b

  polls = -1;  // the walk polls three times, the fourth poll comes before hashing "a"
  result = takeSnapshot({s.at("root")}, {}, GetParam(), hooks);
  failure = std::get_if<SnapshotFailure>(&result);
  ASSERT_NE(failure, nullptr);
  EXPECT_EQ(failure->entry, "root_0:a");
  EXPECT_EQ(failure->message(), "snapshot cancelled at " + s.at("root/a"));
}

TEST_P(SnapshotTest, ChainedSnapshotsShowATransientFileCreatedThenDeleted) {
  Scratch s;
  s.dir("root");
  s.file("root/keep", "k");
  Snapshot before = snap({s.at("root")});
  s.file("root/transient", "t");
  Snapshot during = snap({s.at("root")});
  ASSERT_EQ(unlink(s.at("root/transient").c_str()), 0);
  Snapshot after = snap({s.at("root")});

  auto first = evidence::classify(before.entries, during.entries);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_EQ(first[2].path, "root_0:transient");
  EXPECT_EQ(first[2].status, evidence::ChangeStatus::CREATED);
  EXPECT_EQ(first[1].status, evidence::ChangeStatus::UNCHANGED);
  EXPECT_EQ(first[2].after->sha256, sha("t"));
  auto second = evidence::classify(during.entries, after.entries);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[2].status, evidence::ChangeStatus::DELETED);
}

INSTANTIATE_TEST_SUITE_P(Backends, SnapshotTest,
                         testing::Values(SnapshotBackend::PLAIN, SnapshotBackend::URING),
                         [](const testing::TestParamInfo<SnapshotBackend>& info) {
                           return std::string(snapshotBackendName(info.param));
                         });

// A tree with every kind of entry, small files in batches, large ones streamed, a byte budget
// that runs out part way and an entry budget that cuts the walk: both backends agree exactly.
TEST(SnapshotBackends, PlainAndUringGiveIdenticalSnapshots) {
  if (!uringAvailable()) GTEST_SKIP() << "io_uring is not available here";
  Scratch s;
  s.dir("root");
  for (int d = 0; d < 12; ++d) {
    std::string dir = "root/d" + std::to_string(d);
    s.dir(dir);
    for (int f = 0; f < 40; ++f) {
      size_t size = static_cast<size_t>((d * 7919 + f * 104729) % (f % 9 == 0 ? 700000 : 5000));
      s.file(dir + "/f" + std::to_string(f), std::string(size, static_cast<char>('a' + f % 26)));
    }
    s.link(dir + "/up", "..");
    s.link(dir + "/out", "/etc");
    ASSERT_EQ(mkfifo(s.at(dir + "/pipe").c_str(), 0600), 0);
    s.dir(dir + "/sub");
    s.file(dir + "/sub/deep", "deep");
  }
  std::vector<SnapshotLimits> limitsToTry = {
      {100000, 100000000, 16}, {100000, 2000000, 16}, {300, 100000000, 16}, {100000, 5000, 1}};
  for (const auto& limits : limitsToTry) {
    SCOPED_TRACE(testing::Message() << limits.files << "/" << limits.fileBytes);
    auto plain = takeSnapshot({s.at("root"), s.at("root/d3")}, limits, SnapshotBackend::PLAIN);
    auto uring = takeSnapshot({s.at("root"), s.at("root/d3")}, limits, SnapshotBackend::URING);
    ASSERT_TRUE(std::holds_alternative<Snapshot>(plain));
    ASSERT_TRUE(std::holds_alternative<Snapshot>(uring));
    const auto& p = std::get<Snapshot>(plain);
    const auto& u = std::get<Snapshot>(uring);
    EXPECT_EQ(u.backendUsed, SnapshotBackend::URING);
    EXPECT_TRUE(p.entries == u.entries);
    EXPECT_EQ(p.truncated, u.truncated);
    EXPECT_TRUE(p.truncated);  // links to /etc
    size_t hashed = 0;
    for (const auto& e : p.entries)
      hashed += e.sha256.has_value();
    EXPECT_GT(hashed, 0u);
  }
}

TEST(SnapshotBackends, AutoSetsUpIoUringOnlyForLargeTreesThenKeepsUsingIt) {
  if (!uringAvailable()) GTEST_SKIP() << "io_uring is not available here";
  Scratch s;
  s.dir("small");
  s.file("small/one", "1");
  s.dir("large");
  for (int f = 0; f < 300; ++f)
    s.file("large/f" + std::to_string(f), std::to_string(f));
  auto small = takeSnapshot({s.at("small")}, {}, SnapshotBackend::AUTO);
  ASSERT_TRUE(std::holds_alternative<Snapshot>(small));
  EXPECT_EQ(std::get<Snapshot>(small).backendUsed, SnapshotBackend::PLAIN);
  auto large = takeSnapshot({s.at("large")}, {}, SnapshotBackend::AUTO);
  auto plain = takeSnapshot({s.at("large")}, {}, SnapshotBackend::PLAIN);
  ASSERT_TRUE(std::holds_alternative<Snapshot>(large));
  EXPECT_EQ(std::get<Snapshot>(large).backendUsed, SnapshotBackend::URING);
  EXPECT_TRUE(std::get<Snapshot>(large).entries == std::get<Snapshot>(plain).entries);

  // Once a Snapshotter has set up a ring, small trees use it too.
  Snapshotter snapshotter(SnapshotBackend::AUTO);
  EXPECT_EQ(std::get<Snapshot>(snapshotter.take({s.at("small")}, {})).backendUsed,
            SnapshotBackend::PLAIN);
  EXPECT_EQ(std::get<Snapshot>(snapshotter.take({s.at("large")}, {})).backendUsed,
            SnapshotBackend::URING);
  EXPECT_EQ(std::get<Snapshot>(snapshotter.take({s.at("small")}, {})).backendUsed,
            SnapshotBackend::URING);
}

TEST_P(SnapshotTest, ASnapshotterReusedAfterACancelledSnapshotStartsAfresh) {
  Scratch s;
  s.dir("root");
  s.file("root/a", "a");
  s.file("root/b", "old");
  Snapshotter snapshotter(GetParam());
  int polls = 0;
  SnapshotHooks hooks;
  hooks.cancelled = [&]() { return ++polls == 5; };  // root, a, b; hash a; then before hash b
  SnapshotResult cancelled = snapshotter.take({s.at("root")}, {}, hooks);
  ASSERT_TRUE(std::holds_alternative<SnapshotFailure>(cancelled));
  EXPECT_EQ(std::get<SnapshotFailure>(cancelled).entry, "root_0:b");

  // io_uring hashed "b" ahead, before the cancellation. Now "a" is large (hashed on its own,
  // not in a batch with "b"), so only a fresh start keeps the old result for "b" from coming back.
  s.file("root/a", std::string(300000, 'a'));
  s.file("root/b", "new");
  SnapshotResult again = snapshotter.take({s.at("root")}, {});
  ASSERT_TRUE(std::holds_alternative<Snapshot>(again));
  EXPECT_EQ(std::get<Snapshot>(again).entries[1].sha256, sha(std::string(300000, 'a')));
  EXPECT_EQ(std::get<Snapshot>(again).entries[2].sha256, sha("new"));
}

// ---------------------------------------------------------------------------------------------
// Unreadable entries. The tests run as root, which reads everything, so the snapshot runs in a
// forked child that has dropped to uid/gid 65534 (nobody); the child reports the outcome on a
// pipe as "operation errno entry path" or "ok" / "ok truncated".

// Runs `job` in a forked child and returns what it reported (its return value).
std::string runInChild(const std::function<std::string()>& job) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string report = job();
    (void)!write(fds[1], report.data(), report.size());
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0)
    report.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return report;
}

std::string describe(const SnapshotResult& result) {
  if (auto* failure = std::get_if<SnapshotFailure>(&result)) {
    return failure->operation + " " + std::to_string(failure->error) + " " + failure->entry + " " +
           failure->path;
  }
  return std::get<Snapshot>(result).truncated ? "ok truncated" : "ok";
}

std::string snapshotAsNobody(const std::vector<std::string>& roots, SnapshotBackend backend,
                             const SnapshotLimits& limits = {}) {
  return runInChild([&]() -> std::string {
    if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 65534, 65534) != 0) {
      return "cannot drop privileges";
    }
    return describe(takeSnapshot(roots, limits, backend));
  });
}

class UnreadableTest : public SnapshotTest {};

TEST_P(UnreadableTest, AnUnreadableDirectoryFailsTheSnapshotNamingIt) {
  Scratch s;
  s.dir("root");
  s.file("root/a", "a");
  s.dir("root/locked", 0700);  // root's, so nobody may not open it
  s.file("root/locked/inside", "i");
  EXPECT_EQ(snapshotAsNobody({s.at("root")}, GetParam()),
            "open " + std::to_string(EACCES) + " root_0:locked " + s.at("root/locked"));
  // The same tree is readable for root: the failure is the permission, not the tree.
  EXPECT_EQ(snap({s.at("root")}).entries.size(), 4u);
}

TEST_P(UnreadableTest, ADirectoryWithoutSearchPermissionFailsAtTheFirstChild) {
  Scratch s;
  s.dir("root");
  s.dir("root/listable", 0744);  // nobody may list it but not lstat what is inside
  s.file("root/listable/x", "x");
  EXPECT_EQ(snapshotAsNobody({s.at("root")}, GetParam()),
            "lstat " + std::to_string(EACCES) + " root_0:listable/x " + s.at("root/listable/x"));
}

TEST_P(UnreadableTest, AnUnreadableFileFailsTheSnapshotNamingIt) {
  Scratch s;
  s.dir("root");
  s.file("root/public", "p");
  s.file("root/secret", "s", 0600);
  EXPECT_EQ(snapshotAsNobody({s.at("root")}, GetParam()),
            "open " + std::to_string(EACCES) + " root_0:secret " + s.at("root/secret"));
}

TEST_P(UnreadableTest, AnUnreadableRootFailsTheSnapshot) {
  Scratch s;
  s.dir("hidden", 0700);
  s.dir("hidden/root");
  EXPECT_EQ(snapshotAsNobody({s.at("hidden/root")}, GetParam()),
            "lstat " + std::to_string(EACCES) + " root_0:. " + s.at("hidden/root"));
}

TEST_P(UnreadableTest, AnUnreadableFileOverTheBudgetIsNeverOpened) {
  Scratch s;
  s.dir("root");
  s.file("root/secret", "too large for the budget", 0600);
  SnapshotLimits limits;
  limits.fileBytes = 3;
  EXPECT_EQ(snapshotAsNobody({s.at("root")}, GetParam(), limits), "ok truncated");
}

INSTANTIATE_TEST_SUITE_P(Backends, UnreadableTest,
                         testing::Values(SnapshotBackend::PLAIN, SnapshotBackend::URING),
                         [](const testing::TestParamInfo<SnapshotBackend>& info) {
                           return std::string(snapshotBackendName(info.param));
                         });

// io_uring refused the way a seccomp policy or `kernel.io_uring_disabled` refuses it: the
// snapshot falls back to plain syscalls, with the same result.
TEST(SnapshotBackends, FallsBackToPlainSyscallsWhenIoUringIsRefused) {
  Scratch s;
  s.dir("root");
  s.file("root/f", "f");
  std::string report = runInChild([&]() -> std::string {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == nullptr ||
        seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(io_uring_setup), 0) != 0 ||
        seccomp_load(filter) != 0) {
      return "cannot install the filter";
    }
    seccomp_release(filter);
    if (uringAvailable()) return "io_uring still available";
    SnapshotResult result = takeSnapshot({s.at("root")}, {}, SnapshotBackend::URING);
    if (!std::holds_alternative<Snapshot>(result)) return describe(result);
    const Snapshot& snapshot = std::get<Snapshot>(result);
    return std::string(snapshotBackendName(snapshot.backendUsed)) + " " +
           std::to_string(snapshot.entries.size()) + " " + snapshot.entries[1].sha256.value_or("");
  });
  EXPECT_EQ(report, "plain 2 " + sha("f"));
}

}  // namespace
}  // namespace rea::helper
