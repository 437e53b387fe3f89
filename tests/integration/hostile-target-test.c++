// Hostile targets through the real `rea` binary (issue 8, "Hostile input"): a huge line, invalid
// UTF-8, endless escape sequences, a target that closes its terminal early, a fork bomb and a
// million entries in a filesystem root. Each capture must stay within its limits (and say so
// with `truncated`), keep rea's memory bounded, validate, and leave nothing behind.
//
// Memory is the peak RSS of the largest process this test waited for, directly or through rea
// (getrusage(RUSAGE_CHILDREN): rea and its helpers, which rea reaps): a bound in bytes, never a
// time. ctest runs each test in its own process, so the peak is that test's.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "evidence/evidence-record.h"
#include "evidence/utf.h"
#include "tests/integration/harness.h"
#include "tests/test-support.h"

namespace rea::test {
namespace {

// What any of our processes needs whatever the input: code, libraries, the capture's own
// structures (ASan's shadow memory and quarantine make that several times larger).
#ifdef REA_TEST_ASAN
const long FIXED_OVERHEAD_KB = 600 * 1024;
#else
const long FIXED_OVERHEAD_KB = 150 * 1024;
#endif

long peakChildRssKb() {
  struct rusage usage;
  EXPECT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  return usage.ru_maxrss;
}

Json longShScenario(const std::string& script) {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments", {"-c", script}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"settle_ms", 200},
              {"timeout_ms", 120000}};
}

void expectExitedNormally(const Json& c, int code) {
  EXPECT_EQ(c["exit"]["code"], code) << c["exit"].dump();
  EXPECT_EQ(c["exit"]["reason"], "exited") << c["exit"].dump();
}

TEST(HostileTarget, AHugeLineWithoutNewlineKeepsToTheByteLimitAndBoundedMemory) {
  Sandbox sandbox;
  const long limitBytes = 1000000;
  Json scenario = longShScenario("head -c 40000000 /dev/zero | tr '\\0' x; echo; exit 7");
  scenario["limits"] = {{"output_bytes", limitBytes}};
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  expectExitedNormally(c, 7);
  EXPECT_EQ(c["truncated"], true);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_LE(out.size(), size_t(limitBytes));
  EXPECT_GT(out.size(), 0u);
  EXPECT_EQ(out.find_first_not_of("x\r\n"), std::string::npos);
  long peak = peakChildRssKb();
  EXPECT_LT(peak, 10 * limitBytes / 1024 + FIXED_OVERHEAD_KB) << "peak RSS " << peak << " KiB";
}

TEST(HostileTarget, InvalidUtf8BecomesReplacementCharactersAndValidEvidence) {
  Sandbox sandbox;
  // Every byte value, then lone continuation bytes, overlong forms, UTF-16 surrogates, 5- and
  // 6-byte forms, a truncated sequence at the very end of a write, and a valid sequence split
  // across two writes (B §6.3: kept whole). `printf` takes octal escapes; no digits reach the
  // terminal (pids are normalised even inside words).
  std::string all;
  for (int b = 1; b < 256; ++b) {
    char escape[8];
    snprintf(escape, sizeof(escape), "\\%03o", b);
    all += escape;
  }
  std::string script =
      "printf 'all:" + all +
      ":end\\n'; printf 'cont:\\200\\277\\200:end\\n'; "
      "printf 'overlong:\\300\\257\\340\\200\\257\\360\\200\\200\\257:end\\n'; "
      "printf 'surrogate:\\355\\240\\200\\355\\277\\277:end\\n'; "
      "printf 'long:\\370\\210\\200\\200\\200\\374\\204\\200\\200\\200\\200:end\\n'; "
      "printf 'cut:\\342\\202'; sleep 0.2; printf '\\254:euro\\n'; "
      "printf 'tail:\\360\\237'; sleep 0.2; printf 'marker-after\\n'";
  auto result = sandbox.capture(longShScenario(script));
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  expectExitedNormally(c, 0);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_TRUE(evidence::isValidUtf8(out));
  const std::string replacement = "\xef\xbf\xbd";
  for (const char* marker : {"cont:", "overlong:", "surrogate:", "long:"}) {
    size_t at = out.find(marker);
    ASSERT_NE(at, std::string::npos) << marker << " in " << out;
    EXPECT_EQ(out.compare(at + strlen(marker), 3, replacement), 0) << marker;
  }
  EXPECT_NE(out.find("ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"),
            std::string::npos);
  EXPECT_NE(out.find("cut:\xe2\x82\xac:euro"), std::string::npos) << "a split sequence kept whole";
  EXPECT_NE(out.find("marker-after"), std::string::npos);
  EXPECT_EQ(c["truncated"], false);
}

TEST(HostileTarget, EndlessEscapeSequencesDoNotStallTheRendererOrGrowMemory) {
  Sandbox sandbox;
  const long limitBytes = 10000000;
  // A CSI with three megabytes of (empty) parameters, an OSC of two megabytes that is never
  // terminated, then a DCS of two megabytes, then plain text: raw frames keep every byte
  // (within the limits), the renderer must get through all of it.
  std::string script =
      "printf '\\033['; head -c 3000000 /dev/zero | tr '\\0' ';'; printf 'm'; "
      "printf '\\033]0;'; head -c 2000000 /dev/zero | tr '\\0' t; "
      "printf '\\033P'; head -c 2000000 /dev/zero | tr '\\0' q; "
      "printf 'plain-text-after\\n'";
  Json scenario = longShScenario(script);
  scenario["limits"] = {{"output_bytes", limitBytes}, {"frames", 100000}};
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  expectExitedNormally(c, 0);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_EQ(out.size(), 3000000u + 2000000u + 2000000u + 2 + 1 + 4 + 2 + 18);
  EXPECT_NE(out.find("plain-text-after\r\n"), std::string::npos);
  EXPECT_FALSE(c["rendered_frames"].empty());
  long peak = peakChildRssKb();
  EXPECT_LT(peak, 10 * limitBytes / 1024 + FIXED_OVERHEAD_KB) << "peak RSS " << peak << " KiB";
}

TEST(HostileTarget, ATargetThatClosesItsTerminalEarlyIsStillWaitedForAndItsExitRecorded) {
  Sandbox sandbox;
  // The root closes fds 0-2 (its only handles on the PTY: the master then reads EIO) and keeps
  // running for a while before it exits 3. Its exit, not the closed terminal, ends the run.
  auto result =
      sandbox.capture(longShScenario("echo before-close; exec 0<&- 1>&- 2>&-; sleep 1; exit 3"));
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  expectExitedNormally(c, 3);
  EXPECT_NE(concatenatedFrames(*result.output).find("before-close"), std::string::npos);
  EXPECT_EQ(c["truncated"], false);

  // A child keeps the terminal open after the root closed its own copies and exited: the
  // capture still ends (settlement, then cleanup of the child), no hang until the deadline.
  result = sandbox.capture(
      longShScenario("echo parent; (sleep 30 <&- ; true) & exec 0<&- 1>&- 2>&-; exit 0"));
  expectValidAndClean(sandbox, result);
  expectExitedNormally(capture(*result.output), 0);
}

TEST(HostileTarget, AForkBombIsCutAtTheProcessLimitAndCleanedUp) {
  Sandbox sandbox;
  const int limit = 30;
  // 300 children at once, each living long enough to be sampled in any mode; the root exits
  // first, so settlement finds them alive and owned cleanup must kill every one of them.
  Json scenario = longShScenario(
      "i=0; while [ $i -lt 300 ]; do sleep 30 & i=$((i+1)); done; "
      "sleep 0.5; echo forked");
  scenario["limits"] = {{"processes", limit}};
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  expectExitedNormally(c, 0);
  EXPECT_EQ(c["truncated"], true);
  EXPECT_LE(c["process_samples"].size(), size_t(limit));
  EXPECT_NE(concatenatedFrames(*result.output).find("forked"), std::string::npos);
}

// ---- A million entries -----------------------------------------------------------------------

const int DIRECTORIES = 1000;
const int FILES_PER_DIRECTORY = 1000;

void fillRoot(const std::string& root) {
  // 1000 directories × 1000 empty files, made with openat (fast enough for CI; no shell).
  ASSERT_EQ(mkdir(root.c_str(), 0755), 0);
  int rootFd = open(root.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  ASSERT_GE(rootFd, 0);
  char name[16];
  for (int d = 0; d < DIRECTORIES; ++d) {
    snprintf(name, sizeof(name), "d%03d", d);
    ASSERT_EQ(mkdirat(rootFd, name, 0755), 0);
    int dirFd = openat(rootFd, name, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    ASSERT_GE(dirFd, 0);
    for (int f = 0; f < FILES_PER_DIRECTORY; ++f) {
      snprintf(name, sizeof(name), "f%03d", f);
      int fd = openat(dirFd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
      ASSERT_GE(fd, 0) << name;
      close(fd);
    }
    close(dirFd);
  }
  close(rootFd);
}

void removeRoot(const std::string& root) {
  int rootFd = open(root.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (rootFd < 0) return;
  char name[16];
  for (int d = 0; d < DIRECTORIES; ++d) {
    snprintf(name, sizeof(name), "d%03d", d);
    int dirFd = openat(rootFd, name, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    if (dirFd < 0) continue;
    for (int f = 0; f < FILES_PER_DIRECTORY; ++f) {
      snprintf(name, sizeof(name), "f%03d", f);
      unlinkat(dirFd, name, 0);
    }
    close(dirFd);
    snprintf(name, sizeof(name), "d%03d", d);
    EXPECT_EQ(unlinkat(rootFd, name, AT_REMOVEDIR), 0) << name;
  }
  close(rootFd);
  EXPECT_EQ(rmdir(root.c_str()), 0);
}

TEST(HostileTarget, AMillionEntriesInARootAreCutAtTheFileLimitWithBoundedMemory) {
#ifdef REA_TEST_ASAN
  GTEST_SKIP() << "a million files take too long to make and remove in the ASan build";
#endif
  Sandbox sandbox;
  const std::string root = sandbox.tmpdir() + "/root";
  fillRoot(root);
  if (HasFatalFailure()) return removeRoot(root);
  const int limit = 20000;
  Json scenario = longShScenario("rm \"" + root + "/d000/f000\"; echo walked");
  scenario["filesystem_roots"] = {root};
  scenario["limits"] = {{"files", limit}};
  auto result = sandbox.capture(scenario);
  removeRoot(root);
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  expectExitedNormally(c, 0);
  EXPECT_EQ(c["truncated"], true);
  EXPECT_EQ(c["files_before"].size(), size_t(limit));
  for (const auto& checkpoint : c["filesystem_checkpoints"]) {
    EXPECT_EQ(checkpoint["truncated"], true) << checkpoint["name"];
  }
  // Memory follows limits.files, not the million entries in the root. Each recorded entry
  // appears six times in the Evidence (files before/after, two checkpoints, an effect's before
  // and after), and rea holds the Evidence as a JSON tree: measured about 20 KiB per recorded
  // entry (394 MiB at 20000; left open in issue 8). The million entries would need gigabytes.
  long peak = peakChildRssKb();
  EXPECT_LT(peak, limit * 32 + FIXED_OVERHEAD_KB) << "peak RSS " << peak << " KiB";
}

}  // namespace
}  // namespace rea::test
