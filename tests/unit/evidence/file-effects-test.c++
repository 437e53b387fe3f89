#include "evidence/file-effects.h"

#include <gtest/gtest.h>

#include "evidence/utf.h"

namespace rea::evidence {
namespace {

SnapshotEntry file(std::string path, std::string sha, int64_t size = 3) {
  return {std::move(path), EntryType::FILE, 0100644, size, std::move(sha), std::nullopt};
}

SnapshotEntry dir(std::string path) {
  return {std::move(path), EntryType::DIRECTORY, 040755, 4096, std::nullopt, std::nullopt};
}

std::vector<std::string> paths(const std::vector<EntryChange>& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes)
    out.push_back(c.path);
  return out;
}

TEST(FileEffects, ClassifiesCreatedDeletedModifiedAndUnchanged) {
  std::vector<SnapshotEntry> before = {dir("root_0:."), file("root_0:a", "aa"),
                                       file("root_0:gone", "gg")};
  std::vector<SnapshotEntry> after = {dir("root_0:."), file("root_0:a", "ab"),
                                      file("root_0:new", "nn")};
  auto changes = classify(before, after);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_EQ(paths(changes),
            (std::vector<std::string>{"root_0:.", "root_0:a", "root_0:gone", "root_0:new"}));
  EXPECT_EQ(changes[0].status, ChangeStatus::UNCHANGED);
  EXPECT_EQ(changes[0].before, changes[0].after);
  EXPECT_EQ(changes[1].status, ChangeStatus::MODIFIED);
  EXPECT_EQ(changes[1].before->sha256, "aa");
  EXPECT_EQ(changes[1].after->sha256, "ab");
  EXPECT_EQ(changes[2].status, ChangeStatus::DELETED);
  EXPECT_FALSE(changes[2].after.has_value());
  EXPECT_EQ(changes[3].status, ChangeStatus::CREATED);
  EXPECT_FALSE(changes[3].before.has_value());
}

TEST(FileEffects, AnyOfTheSixFieldsMakesAnEntryModified) {
  SnapshotEntry base = file("root_0:f", "s");
  auto modified = [&](SnapshotEntry changed) {
    return classify({base}, {changed})[0].status == ChangeStatus::MODIFIED;
  };
  SnapshotEntry e = base;
  e.type = EntryType::OTHER;
  EXPECT_TRUE(modified(e));
  e = base;
  e.mode = 0100600;
  EXPECT_TRUE(modified(e));
  e = base;
  e.size = 4;
  EXPECT_TRUE(modified(e));
  e = base;
  e.sha256.reset();
  EXPECT_TRUE(modified(e));
  e = base;
  e.symlinkTarget = ".";
  EXPECT_TRUE(modified(e));
  EXPECT_FALSE(modified(base));
}

TEST(FileEffects, SortsPathsByUtf16CodeUnits) {
  // U+1F600 (D83D DE00) sorts before U+FF01 in UTF-16 but after it in UTF-8; "C" < "a".
  std::vector<SnapshotEntry> after = {file("root_0:\xEF\xBC\x81", "1"), file("root_0:a", "2"),
                                      file("root_0:\xF0\x9F\x98\x80", "3"), file("root_0:C", "4"),
                                      file("root_1:.", "5")};
  auto changes = classify({}, after);
  EXPECT_EQ(paths(changes),
            (std::vector<std::string>{"root_0:C", "root_0:a", "root_0:\xF0\x9F\x98\x80",
                                      "root_0:\xEF\xBC\x81", "root_1:."}));
}

TEST(FileEffects, OrdersNamesThatDifferOnlyInInvalidUtf8ByTheirBytes) {
  EXPECT_EQ(compareUtf16("root_0:\xFF", "root_0:\xFE"), 0);
  EXPECT_GT(comparePaths("root_0:\xFF", "root_0:\xFE"), 0);
  auto changes = classify({file("root_0:\xFF", "1")}, {file("root_0:\xFE", "2")});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].path, "root_0:\xFE");
  EXPECT_EQ(changes[0].status, ChangeStatus::CREATED);
  EXPECT_EQ(changes[1].status, ChangeStatus::DELETED);
}

TEST(FileEffects, ChainedCheckpointsShowATransientFileCreatedThenDeleted) {
  std::vector<SnapshotEntry> before = {dir("root_0:.")};
  std::vector<SnapshotEntry> middle = {dir("root_0:."), file("root_0:tmp", "t")};
  std::vector<SnapshotEntry> after = {dir("root_0:.")};
  auto first = classify(before, middle);
  auto second = classify(middle, after);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[1].status, ChangeStatus::CREATED);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[1].status, ChangeStatus::DELETED);
  // Overall (not chained) the file never existed.
  auto overall = classify(before, after);
  ASSERT_EQ(overall.size(), 1u);
  EXPECT_EQ(overall[0].status, ChangeStatus::UNCHANGED);
}

TEST(FileEffects, NamesTypesAndStatusesAsTheSpecSpellsThem) {
  EXPECT_STREQ(entryTypeName(EntryType::FILE), "file");
  EXPECT_STREQ(entryTypeName(EntryType::DIRECTORY), "directory");
  EXPECT_STREQ(entryTypeName(EntryType::SYMLINK), "symlink");
  EXPECT_STREQ(entryTypeName(EntryType::OTHER), "other");
  EXPECT_STREQ(changeStatusName(ChangeStatus::CREATED), "created");
  EXPECT_STREQ(changeStatusName(ChangeStatus::MODIFIED), "modified");
  EXPECT_STREQ(changeStatusName(ChangeStatus::DELETED), "deleted");
  EXPECT_STREQ(changeStatusName(ChangeStatus::UNCHANGED), "unchanged");
}

TEST(FileEffects, KeepsTheLastOfARepeatedPath) {
  auto changes =
      classify({file("root_0:f", "old"), file("root_0:f", "new")}, {file("root_0:f", "new")});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].status, ChangeStatus::UNCHANGED);
}

}  // namespace
}  // namespace rea::evidence
