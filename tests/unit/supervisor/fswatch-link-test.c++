// FswatchLink against the real rea-fswatch binary (build/bin), through HelperProcess and
// Cap'n Proto: snapshots, serialisation, a structured failure, and lost helpers.
#include "supervisor/links/fswatch-link.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <kj/debug.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "evidence/sha256.h"
#include "tests/test-support.h"

namespace rea::supervisor {
namespace {

using rea::test::HELPER_DIR;

struct Tree : rea::test::TempTree {
  Tree() : TempTree("rea-fswatch-link") {}
};

std::string faultOf(const FswatchLink& link) {
  KJ_IF_MAYBE (fault, link.fault()) {
    return fault->reason;
  }
  return "no fault";
}

std::vector<std::string> paths(const FsSnapshot& snapshot) {
  std::vector<std::string> out;
  for (const auto& entry : snapshot.entries)
    out.push_back(entry.path);
  return out;
}

TEST(FswatchLink, TakesASnapshotWithHashesAndSymlinkTargets) {
  Tree tree;
  tree.file("a", "hello\n");
  tree.dir("d");
  tree.file("d/b", "");
  tree.symlink("a", "in");
  tree.symlink("/etc/passwd", "out");
  auto io = kj::setupAsyncIo();
  FswatchLink link(io, {tree.root}, FswatchLimits{}, HELPER_DIR);
  auto outcome = link.snapshot().wait(io.waitScope);
  ASSERT_EQ(outcome.kind, FswatchOutcome::Kind::SNAPSHOT) << faultOf(link);
  EXPECT_EQ(paths(outcome.snapshot),
            (std::vector<std::string>{"root_0:.", "root_0:a", "root_0:d", "root_0:d/b", "root_0:in",
                                      "root_0:out"}));
  const auto& entries = outcome.snapshot.entries;
  EXPECT_EQ(entries[1].sha256, evidence::sha256Hex("hello\n"));
  EXPECT_EQ(entries[1].mode, 0100644);
  EXPECT_EQ(entries[3].sha256, evidence::sha256Hex(""));
  EXPECT_EQ(entries[2].type, evidence::EntryType::DIRECTORY);
  EXPECT_EQ(entries[4].symlinkTarget, std::optional<std::string>("a"));
  EXPECT_EQ(entries[5].symlinkTarget, std::optional<std::string>(evidence::OUTSIDE_DECLARED_ROOT));
  EXPECT_TRUE(outcome.snapshot.truncated);  // an outside target truncates (B §6.9)
  link.finish().wait(io.waitScope);
  EXPECT_TRUE(link.fault() == nullptr);
}

TEST(FswatchLink, SnapshotsAreQueuedInOrderAndSeeLaterChanges) {
  Tree tree;
  tree.file("a", "1");
  auto io = kj::setupAsyncIo();
  FswatchLink link(io, {tree.root, tree.at("missing")}, FswatchLimits{}, HELPER_DIR);
  auto first = link.snapshot();
  auto second = link.snapshot();
  auto one = first.wait(io.waitScope);
  auto two = second.wait(io.waitScope);
  ASSERT_EQ(one.kind, FswatchOutcome::Kind::SNAPSHOT);
  ASSERT_EQ(two.kind, FswatchOutcome::Kind::SNAPSHOT);
  EXPECT_LE(one.atNs, two.atNs);
  EXPECT_EQ(paths(one.snapshot), (std::vector<std::string>{"root_0:.", "root_0:a"}));
  tree.file("b", "2");
  auto three = link.snapshot().wait(io.waitScope);
  EXPECT_EQ(paths(three.snapshot), (std::vector<std::string>{"root_0:.", "root_0:a", "root_0:b"}));
  EXPECT_FALSE(three.snapshot.truncated);
  link.finish().wait(io.waitScope);
}

TEST(FswatchLink, BudgetsTruncate) {
  Tree tree;
  tree.file("a", "0123456789");
  tree.file("b", "x");
  tree.file("c", "y");
  auto io = kj::setupAsyncIo();
  FswatchLimits limits;
  limits.files = 3;
  limits.fileBytes = 5;
  FswatchLink link(io, {tree.root}, limits, HELPER_DIR);
  auto outcome = link.snapshot().wait(io.waitScope);
  ASSERT_EQ(outcome.kind, FswatchOutcome::Kind::SNAPSHOT) << faultOf(link);
  EXPECT_EQ(paths(outcome.snapshot),
            (std::vector<std::string>{"root_0:.", "root_0:a", "root_0:b"}));
  EXPECT_EQ(outcome.snapshot.entries[1].sha256, std::nullopt);  // over the byte budget
  EXPECT_EQ(outcome.snapshot.entries[2].sha256, evidence::sha256Hex("x"));
  EXPECT_TRUE(outcome.snapshot.truncated);
  link.finish().wait(io.waitScope);
}

[[noreturn]] void failAsNobody(const std::string& root) {
  // As root nothing is unreadable: drop to nobody (the helper inherits it).
  if (setgroups(0, nullptr) != 0 || setresgid(65534, 65534, 65534) != 0 ||
      setresuid(65534, 65534, 65534) != 0) {
    _exit(2);
  }
  auto io = kj::setupAsyncIo();
  FswatchLink link(io, {root}, FswatchLimits{}, HELPER_DIR);
  auto outcome = link.snapshot().wait(io.waitScope);
  link.finish().wait(io.waitScope);
  bool ok = outcome.kind == FswatchOutcome::Kind::FAILURE &&
            outcome.failure.entry == "root_0:secret" && outcome.failure.operation == "open" &&
            outcome.failure.error == EACCES && link.fault() == nullptr &&
            fsFailureMessage(outcome.failure) ==
                "A filesystem snapshot could not read root_0:secret (open: Permission denied).";
  _exit(ok ? 0 : 1);
}

TEST(FswatchLink, AnUnreadableFileIsAStructuredFailureNotALoss) {
  Tree tree;
  tree.file("public", "p");
  tree.file("secret", "s", 0600);  // root's: nobody may not open it
  EXPECT_EXIT(failAsNobody(tree.root), testing::ExitedWithCode(0), "");
}

TEST(FswatchLink, AKilledHelperIsLostAndLaterSnapshotsResolveLost) {
  Tree tree;
  tree.file("a", "1");
  auto io = kj::setupAsyncIo();
  FswatchLink link(io, {tree.root}, FswatchLimits{}, HELPER_DIR);
  ASSERT_EQ(link.snapshot().wait(io.waitScope).kind, FswatchOutcome::Kind::SNAPSHOT);
  pid_t pid = KJ_ASSERT_NONNULL(link.helperPid());
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  auto lost = link.snapshot().wait(io.waitScope);
  EXPECT_EQ(lost.kind, FswatchOutcome::Kind::LOST);
  auto& fault = KJ_ASSERT_NONNULL(link.fault());
  EXPECT_EQ(fault.reason, "the fswatch helper crashed with signal 9 (SIGKILL) during a snapshot");
  EXPECT_EQ(link.snapshot().wait(io.waitScope).kind, FswatchOutcome::Kind::LOST);
  link.finish().wait(io.waitScope);
  EXPECT_TRUE(KJ_ASSERT_NONNULL(link.fault()).end.has_value());
}

TEST(FswatchLink, AHelperThatCannotRunIsLostNotHung) {
  Tree tree;
  auto io = kj::setupAsyncIo();
  FswatchLink link(io, {tree.root}, FswatchLimits{}, "/nonexistent-rea-helpers");
  auto outcome = link.snapshot().wait(io.waitScope);
  EXPECT_EQ(outcome.kind, FswatchOutcome::Kind::LOST);
  auto& fault = KJ_ASSERT_NONNULL(link.fault());
  EXPECT_NE(fault.reason.find("died before it was ready"), std::string::npos) << fault.reason;
  link.finish().wait(io.waitScope);
}

TEST(FswatchLink, RejectsRootsAndLimitsOutOfRange) {
  auto io = kj::setupAsyncIo();
  EXPECT_ANY_THROW(FswatchLink(io, {"relative"}, FswatchLimits{}, HELPER_DIR));
  EXPECT_ANY_THROW(
      FswatchLink(io, std::vector<std::string>(17, "/tmp"), FswatchLimits{}, HELPER_DIR));
  FswatchLimits limits;
  limits.depth = 65;
  EXPECT_ANY_THROW(FswatchLink(io, {"/tmp"}, limits, HELPER_DIR));
}

}  // namespace
}  // namespace rea::supervisor
