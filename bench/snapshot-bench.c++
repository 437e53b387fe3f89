// Snapshot benchmark (helpers/fswatch, SPEC B §6.9): how long one snapshot takes on
//   (a) 10,000 small files (100 directories x 100 files, 100 B - 4 KiB), against a sequential
//       nftw walk that lstat's every entry and opens, reads and hashes every file;
//   (b) 20 files of 50 MB, against `cat` of the same files to /dev/null and against OpenSSL's
//       SHA-256 rate over the same number of bytes in memory (both measured in this run);
//   (c) a tiny tree (2 directories, 20 files), the usual size of a project's checkpoint root,
//       where setting up an io_uring ring costs more than it saves.
// Each snapshot runs with the plain, io_uring and auto backends through takeSnapshot() (a fresh
// ring per snapshot); (c) also with one Snapshotter reused (the ring set up once). Every figure
// is the median of the runs (default 5), warm page cache. The trees live under $TMPDIR or /tmp
// and are removed after.
//
// Usage: snapshot-bench [RUNS] [--runs N] [--only a|b|c]   (RUNS and --runs N are the same)

#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/support/arguments.h"
#include "evidence/sha256.h"
#include "helpers/fswatch/snapshot.h"
#include "supervisor/run/temp-root.h"

extern char** environ;

namespace {

using rea::helper::Snapshot;
using rea::helper::SnapshotBackend;

constexpr int SMALL_DIRS = 100;
constexpr int SMALL_FILES_PER_DIR = 100;
constexpr int LARGE_FILES = 20;
constexpr size_t LARGE_FILE_BYTES = 50'000'000;

[[noreturn]] void die(const std::string& what) {
  fprintf(stderr, "snapshot-bench: %s: %s\n", what.c_str(), strerror(errno));
  exit(1);
}

void writeFile(const std::string& path, const char* data, size_t size) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die("open " + path);
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fd, data + done, size - done);
    if (n < 0) die("write " + path);
    done += static_cast<size_t>(n);
  }
  close(fd);
}

// Deterministic filler bytes (xorshift), so every file has its own content.
std::vector<char> fillerBytes(size_t size, uint64_t seed) {
  std::vector<char> bytes(size);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < size; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy(bytes.data() + i, &x, std::min<size_t>(8, size - i));
  }
  return bytes;
}

std::vector<std::string> makeSmallTree(const std::string& root) {
  std::vector<std::string> files;
  if (mkdir(root.c_str(), 0755) != 0) die("mkdir " + root);
  std::vector<char> pool = fillerBytes(1 << 20, 7);
  for (int d = 0; d < SMALL_DIRS; ++d) {
    std::string dir = root + "/dir" + std::to_string(d);
    if (mkdir(dir.c_str(), 0755) != 0) die("mkdir " + dir);
    for (int f = 0; f < SMALL_FILES_PER_DIR; ++f) {
      size_t size = 100 + static_cast<size_t>((d * 7919 + f * 104729) % 4000);
      size_t offset = static_cast<size_t>(d * SMALL_FILES_PER_DIR + f) * 97 % (pool.size() - size);
      files.push_back(dir + "/file" + std::to_string(f));
      writeFile(files.back(), pool.data() + offset, size);
    }
  }
  return files;
}

std::vector<std::string> makeLargeTree(const std::string& root) {
  std::vector<std::string> files;
  if (mkdir(root.c_str(), 0755) != 0) die("mkdir " + root);
  for (int i = 0; i < LARGE_FILES; ++i) {
    std::vector<char> bytes = fillerBytes(LARGE_FILE_BYTES, static_cast<uint64_t>(i) + 100);
    files.push_back(root + "/large" + std::to_string(i));
    writeFile(files.back(), bytes.data(), bytes.size());
  }
  return files;
}

double seconds(const std::function<void()>& run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

rea::helper::SnapshotLimits benchLimits() {
  rea::helper::SnapshotLimits limits;
  limits.files = 100000;
  limits.fileBytes = uint64_t(1) << 40;  // beyond the scenario maximum: measure hashing, not limits
  limits.depth = 16;
  return limits;
}

Snapshot checked(rea::helper::SnapshotResult result, const std::string& root) {
  if (auto* failure = std::get_if<rea::helper::SnapshotFailure>(&result)) {
    fprintf(stderr, "snapshot-bench: %s\n", failure->message().c_str());
    exit(1);
  }
  Snapshot snapshot = std::get<Snapshot>(std::move(result));
  if (snapshot.truncated) {
    fprintf(stderr, "snapshot-bench: snapshot of %s truncated\n", root.c_str());
    exit(1);
  }
  return snapshot;
}

Snapshot snapshotOrDie(const std::string& root, SnapshotBackend backend) {
  return checked(rea::helper::takeSnapshot({root}, benchLimits(), backend), root);
}

std::vector<std::string> makeTinyTree(const std::string& root) {
  std::vector<std::string> files;
  if (mkdir(root.c_str(), 0755) != 0) die("mkdir " + root);
  std::vector<char> pool = fillerBytes(64 * 1024, 11);
  for (int d = 0; d < 2; ++d) {
    std::string dir = root + "/dir" + std::to_string(d);
    if (mkdir(dir.c_str(), 0755) != 0) die("mkdir " + dir);
    for (int f = 0; f < 10; ++f) {
      files.push_back(dir + "/file" + std::to_string(f));
      writeFile(files.back(), pool.data() + f * 1000, 200 + static_cast<size_t>(f) * 700);
    }
  }
  return files;
}

// The sequential baseline: nftw (FTW_PHYS lstat's every entry), then open/read/hash/close of
// each regular file with a 1 MiB buffer.
std::vector<char> baselineBuffer;
size_t baselineHashed = 0;

int baselineVisit(const char* path, const struct stat* st, int type, struct FTW*) {
  if (type != FTW_F || !S_ISREG(st->st_mode)) return 0;
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) die(std::string("open ") + path);
  rea::evidence::Sha256 sha;
  ssize_t n;
  while ((n = read(fd, baselineBuffer.data(), baselineBuffer.size())) > 0) {
    sha.update(baselineBuffer.data(), static_cast<size_t>(n));
  }
  close(fd);
  if (sha.finishHex().size() == 64) ++baselineHashed;
  return 0;
}

void sequentialBaseline(const std::string& root) {
  baselineBuffer.resize(1 << 20);
  baselineHashed = 0;
  if (nftw(root.c_str(), baselineVisit, 64, FTW_PHYS) != 0) die("nftw " + root);
}

void catToDevNull(const std::vector<std::string>& files) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv{const_cast<char*>("cat")};
  for (const auto& f : files)
    argv.push_back(const_cast<char*>(f.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, "cat", &actions, nullptr, argv.data(), environ) != 0) die("spawn cat");
  posix_spawn_file_actions_destroy(&actions);
  int status;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("cat failed");
}

// OpenSSL SHA-256 over `bytes` bytes of memory, 1 MiB per update (as the snapshot reads).
void sha256InMemory(const std::vector<char>& block, size_t bytes) {
  rea::evidence::Sha256 sha;
  for (size_t done = 0; done < bytes; done += block.size()) {
    sha.update(block.data(), std::min(block.size(), bytes - done));
  }
  if (sha.finishHex().size() != 64) die("sha256");
}

void warm(const std::vector<std::string>& files) {
  std::vector<char> buffer(1 << 20);
  for (const auto& f : files) {
    int fd = open(f.c_str(), O_RDONLY | O_CLOEXEC);
    while (read(fd, buffer.data(), buffer.size()) > 0) {
    }
    close(fd);
  }
}

struct Row {
  std::string tree, method;
  double seconds;
  std::string rate;
};

void printTable(const std::vector<Row>& rows) {
  printf("%-22s %-36s %12s %20s\n", "tree", "method", "median ms", "rate");
  for (const auto& row : rows) {
    printf("%-22s %-36s %12.3f %20s\n", row.tree.c_str(), row.method.c_str(), row.seconds * 1e3,
           row.rate.c_str());
  }
}

std::string perSecond(double count, double secs, const char* unit) {
  char text[64];
  snprintf(text, sizeof(text), "%.0f %s", count / secs, unit);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "snapshot-bench [runs] [--runs N] [--only a|b|c]";
  auto arguments = rea::bench::parseArguments(argc, argv, usage);
  int runs = arguments.runs;
  bool small = true, large = true, tiny = true;
  const auto& flags = arguments.flags;
  for (size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == "--runs" && i + 1 < flags.size()) {
      runs = std::max(1, atoi(flags[++i].c_str()));
    } else if (flags[i] == "--only" && i + 1 < flags.size()) {
      const std::string& which = flags[++i];
      small = which == "a";
      large = which == "b";
      tiny = which == "c";
    } else {
      fprintf(stderr, "usage: %s\n", usage);
      return 2;
    }
  }
  bool uring = rea::helper::uringAvailable();
  struct utsname machine;
  uname(&machine);
  printf("snapshot-bench: %s %s, %ld CPUs, io_uring %s, median of %d runs, warm cache\n",
         machine.sysname, machine.release, sysconf(_SC_NPROCESSORS_ONLN),
         uring ? "available" : "unavailable", runs);

  const char* tmp = getenv("TMPDIR");
  std::string base =
      std::string(tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp") + "/rea-snapshot-bench-XXXXXX";
  std::vector<char> pattern(base.begin(), base.end());
  pattern.push_back('\0');
  if (mkdtemp(pattern.data()) == nullptr) die("mkdtemp");
  std::string scratch = pattern.data();
  std::vector<Row> rows;
  try {
    if (small) {
      std::string root = scratch + "/small";
      std::vector<std::string> files = makeSmallTree(root);
      warm(files);
      Snapshot reference = snapshotOrDie(root, SnapshotBackend::PLAIN);
      if (uring && !(snapshotOrDie(root, SnapshotBackend::URING).entries == reference.entries)) {
        fprintf(stderr, "snapshot-bench: plain and io_uring snapshots differ\n");
        return 1;
      }
      std::vector<double> plainT, uringT, autoT, baseT;
      for (int r = 0; r < runs; ++r) {
        plainT.push_back(seconds([&] { snapshotOrDie(root, SnapshotBackend::PLAIN); }));
        if (uring) uringT.push_back(seconds([&] { snapshotOrDie(root, SnapshotBackend::URING); }));
        autoT.push_back(seconds([&] { snapshotOrDie(root, SnapshotBackend::AUTO); }));
        baseT.push_back(seconds([&] { sequentialBaseline(root); }));
      }
      if (baselineHashed != files.size()) die("baseline missed files");
      double n = static_cast<double>(reference.entries.size());
      const char* tree = "(a) 10,000 small files";
      rows.push_back({tree, "snapshot, plain syscalls", median(plainT),
                      perSecond(n, median(plainT), "entries/s")});
      if (uring) {
        rows.push_back({tree, "snapshot, io_uring", median(uringT),
                        perSecond(n, median(uringT), "entries/s")});
      }
      rows.push_back(
          {tree, "snapshot, auto", median(autoT), perSecond(n, median(autoT), "entries/s")});
      rows.push_back({tree, "baseline: nftw lstat+open+read+hash", median(baseT),
                      perSecond(n, median(baseT), "entries/s")});
    }
    if (large) {
      std::string root = scratch + "/large";
      std::vector<std::string> files = makeLargeTree(root);
      warm(files);
      double total = static_cast<double>(LARGE_FILES) * LARGE_FILE_BYTES;
      std::vector<char> block = fillerBytes(1 << 20, 3);
      std::vector<double> plainT, uringT, autoT, catT, shaT;
      for (int r = 0; r < runs; ++r) {
        plainT.push_back(seconds([&] { snapshotOrDie(root, SnapshotBackend::PLAIN); }));
        if (uring) uringT.push_back(seconds([&] { snapshotOrDie(root, SnapshotBackend::URING); }));
        autoT.push_back(seconds([&] { snapshotOrDie(root, SnapshotBackend::AUTO); }));
        catT.push_back(seconds([&] { catToDevNull(files); }));
        shaT.push_back(seconds([&] { sha256InMemory(block, LARGE_FILES * LARGE_FILE_BYTES); }));
      }
      const char* tree = "(b) 20 x 50 MB";
      auto mbps = [&](double secs) { return perSecond(total / 1e6, secs, "MB/s"); };
      rows.push_back({tree, "snapshot, plain syscalls", median(plainT), mbps(median(plainT))});
      if (uring) rows.push_back({tree, "snapshot, io_uring", median(uringT), mbps(median(uringT))});
      rows.push_back({tree, "snapshot, auto", median(autoT), mbps(median(autoT))});
      rows.push_back({tree, "cat > /dev/null", median(catT), mbps(median(catT))});
      rows.push_back({tree, "OpenSSL SHA-256 in memory", median(shaT), mbps(median(shaT))});
      double bound = 1.5 * std::max(median(catT), median(shaT));
      printf("target (b): snapshot <= 1.5 x max(cat, SHA-256) = %.1f ms\n", bound * 1e3);
    }
    if (tiny) {
      std::string root = scratch + "/tiny";
      std::vector<std::string> files = makeTinyTree(root);
      warm(files);
      constexpr int REPEAT = 50;  // one snapshot is well under a millisecond: time 50 in a row
      auto repeated = [&](const std::function<void()>& once) {
        return seconds([&] {
                 for (int k = 0; k < REPEAT; ++k)
                   once();
               }) /
               REPEAT;
      };
      rea::helper::Snapshotter reusedPlain(SnapshotBackend::PLAIN);
      rea::helper::Snapshotter reusedUring(SnapshotBackend::URING);
      std::vector<double> plainT, uringT, autoT, plainReusedT, uringReusedT;
      for (int r = 0; r < runs; ++r) {
        plainT.push_back(repeated([&] { snapshotOrDie(root, SnapshotBackend::PLAIN); }));
        if (uring) uringT.push_back(repeated([&] { snapshotOrDie(root, SnapshotBackend::URING); }));
        autoT.push_back(repeated([&] { snapshotOrDie(root, SnapshotBackend::AUTO); }));
        plainReusedT.push_back(
            repeated([&] { checked(reusedPlain.take({root}, benchLimits()), root); }));
        if (uring) {
          uringReusedT.push_back(
              repeated([&] { checked(reusedUring.take({root}, benchLimits()), root); }));
        }
      }
      const char* tree = "(c) tiny: 23 entries";
      auto perSnapshot = [](double secs) { return perSecond(1, secs, "snapshots/s"); };
      rows.push_back(
          {tree, "snapshot, plain syscalls", median(plainT), perSnapshot(median(plainT))});
      if (uring) {
        rows.push_back({tree, "snapshot, io_uring", median(uringT), perSnapshot(median(uringT))});
      }
      rows.push_back({tree, "snapshot, auto", median(autoT), perSnapshot(median(autoT))});
      rows.push_back({tree, "Snapshotter reused, plain", median(plainReusedT),
                      perSnapshot(median(plainReusedT))});
      if (uring) {
        rows.push_back({tree, "Snapshotter reused, io_uring", median(uringReusedT),
                        perSnapshot(median(uringReusedT))});
      }
    }
  } catch (...) {
    rea::supervisor::removeTree(scratch);
    throw;
  }
  rea::supervisor::removeTree(scratch);
  printTable(rows);
  return 0;
}
