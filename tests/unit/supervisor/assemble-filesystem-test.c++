// Filesystem assembly: chained checkpoint effects, top-level effects, times, lost snapshots.
#include "supervisor/assembly/assemble-filesystem.h"

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

using evidence::EntryType;
using evidence::FileStatus;
using evidence::SnapshotEntry;

const uint64_t T0 = 5000000000ull;  // CLOCK_MONOTONIC ns

SnapshotEntry file(const std::string& path, const std::string& sha) {
  return SnapshotEntry{path, EntryType::FILE, 0100644, 1, sha, std::nullopt};
}

SnapshotEntry root() {
  return SnapshotEntry{"root_0:.", EntryType::DIRECTORY, 040755, 4096, std::nullopt, std::nullopt};
}

CheckpointRecord checkpoint(const std::string& name, uint64_t atMs,
                            std::vector<SnapshotEntry> files, bool truncated = false) {
  CheckpointRecord record;
  record.name = name;
  record.atNs = name == "before" ? 0 : T0 + atMs * 1000000;
  record.files = std::move(files);
  record.truncated = truncated;
  return record;
}

std::string statusAt(const std::vector<evidence::FileEffect>& effects, const std::string& path) {
  for (const auto& effect : effects) {
    if (effect.path == path) return evidence::toString(effect.status);
  }
  return "absent";
}

TEST(AssembleFilesystem, EachCheckpointIsRelativeToThePreviousOneSoATransientFileShows) {
  FilesystemRecord record;
  record.checkpoints = {
      checkpoint("before", 0, {root(), file("root_0:a", std::string(64, 'a'))}),
      checkpoint("mid", 123,
                 {root(), file("root_0:a", std::string(64, 'a')),
                  file("root_0:tmp", std::string(64, 't'))}),
      checkpoint("after_settlement", 250, {root(), file("root_0:a", std::string(64, 'b'))})};
  auto out = assembleFilesystem(record, T0, 100, 999);
  ASSERT_EQ(out.checkpoints.size(), 3u);
  EXPECT_EQ(out.checkpoints[0].atMs, 0);
  EXPECT_EQ(out.checkpoints[1].atMs, 100);  // bucketed (A6)
  EXPECT_EQ(out.checkpoints[2].atMs, 200);
  EXPECT_TRUE(out.checkpoints[0].effects.empty());
  EXPECT_EQ(statusAt(out.checkpoints[1].effects, "root_0:tmp"), "created");
  EXPECT_EQ(statusAt(out.checkpoints[1].effects, "root_0:a"), "unchanged");
  EXPECT_EQ(statusAt(out.checkpoints[2].effects, "root_0:tmp"), "deleted");
  EXPECT_EQ(statusAt(out.checkpoints[2].effects, "root_0:a"), "modified");
  // Top level: BEFORE against AFTER, not chained.
  EXPECT_EQ(statusAt(out.effects, "root_0:tmp"), "absent");
  EXPECT_EQ(statusAt(out.effects, "root_0:a"), "modified");
  EXPECT_EQ(out.filesBefore.size(), 2u);
  EXPECT_EQ(out.filesAfter[1].sha256, std::string(64, 'b'));
  EXPECT_FALSE(out.truncated);
}

TEST(AssembleFilesystem, TruncationOfAnyCheckpointTruncatesTheCapture) {
  FilesystemRecord record;
  record.checkpoints = {checkpoint("before", 0, {root()}), checkpoint("x", 10, {root()}, true),
                        checkpoint("after_settlement", 20, {root()})};
  auto out = assembleFilesystem(record, T0, 1, 0);
  EXPECT_TRUE(out.truncated);
  EXPECT_TRUE(out.checkpoints[1].truncated);
  EXPECT_FALSE(out.checkpoints[2].truncated);
}

TEST(AssembleFilesystem, AMissingAfterSnapshotIsNotReadAsEverythingDeleted) {
  FilesystemRecord record;
  record.checkpoints = {checkpoint("before", 0, {root(), file("root_0:a", std::string(64, 'a'))})};
  CheckpointRecord lost = checkpoint("after_settlement", 40, {});
  lost.missing = true;
  lost.truncated = true;
  record.checkpoints.push_back(lost);
  auto out = assembleFilesystem(record, T0, 1, 0);
  ASSERT_EQ(out.checkpoints.size(), 2u);
  EXPECT_TRUE(out.checkpoints[1].effects.empty());
  EXPECT_TRUE(out.checkpoints[1].files.empty());
  EXPECT_TRUE(out.effects.empty());
  EXPECT_EQ(out.filesBefore.size(), 2u);
  EXPECT_TRUE(out.truncated);
}

TEST(AssembleFilesystem, ARecordWithoutItsEndsGetsBothNamedCheckpointsAsMissing) {
  auto out = assembleFilesystem(FilesystemRecord{}, T0, 10, 70);
  ASSERT_EQ(out.checkpoints.size(), 2u);
  EXPECT_EQ(out.checkpoints[0].name, "before");
  EXPECT_EQ(out.checkpoints[1].name, "after_settlement");
  EXPECT_EQ(out.checkpoints[1].atMs, 70);
  EXPECT_TRUE(out.truncated);
}

TEST(AssembleFilesystem, NamesThatAreNotUtf8AreDecodedAndEffectsSortedByUtf16) {
  FilesystemRecord record;
  record.checkpoints = {
      checkpoint("before", 0, {root()}),
      checkpoint(
          "after_settlement", 5,
          {root(), file("root_0:a", std::string(64, '1')), file("root_0:C", std::string(64, '2')),
           file("root_0:bad\xff", std::string(64, '3')),
           file("root_0:\xef\xbd\xa1", std::string(64, '4')),         // U+FF61
           file("root_0:\xf0\x9f\x98\x80", std::string(64, '5'))})};  // U+1F600
  auto out = assembleFilesystem(record, T0, 1, 0);
  std::vector<std::string> order;
  for (const auto& effect : out.effects)
    order.push_back(effect.path);
  // UTF-16: "C" < "a" < "bad\uFFFD"; U+1F600 (surrogates D83D...) sorts before U+FF61.
  EXPECT_EQ(order,
            (std::vector<std::string>{"root_0:.", "root_0:C", "root_0:a", "root_0:bad\xef\xbf\xbd",
                                      "root_0:\xf0\x9f\x98\x80", "root_0:\xef\xbd\xa1"}));
  EXPECT_EQ(out.effects[1].status, FileStatus::CREATED);
}

}  // namespace
}  // namespace rea::supervisor
