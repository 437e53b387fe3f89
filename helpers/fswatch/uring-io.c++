// The io_uring FileIo. Hashing a small file costs five syscalls with plain calls (open, fstat,
// read, fstat, close), and a syscall costs microseconds on this kind of VM; here one
// io_uring_enter carries the opens, reads or closes of a whole batch. Large files are streamed with
// the next block's read running in an io-wq worker while the current block is hashed.

#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <unordered_map>

#include <kj/debug.h>

#include "evidence/sha256.h"
#include "helpers/fswatch/file-io.h"

namespace rea::helper {
namespace {

constexpr unsigned RING_ENTRIES = 256;
constexpr size_t BATCH_FILES = 128;        // small files per hash batch (measured best)
constexpr size_t BATCH_SCAN = 4096;        // how far a batch plan looks ahead
constexpr uint64_t BATCH_BYTES = 8 << 20;  // buffer bytes of one batch
constexpr size_t STREAM_BLOCK = 1 << 20;   // read size for large files

class UringFileIo final : public FileIo {
 public:
  UringFileIo(bool streamLargeFiles, RingOpen ringOpen)
      : streamLargeFiles(streamLargeFiles), ringOpens(ringOpen == RingOpen::ALLOWED) {}

  ~UringFileIo() noexcept(false) {
    if (initialised) io_uring_queue_exit(&ring);
  }

  // The ring starts disabled and is limited to the operations a snapshot needs before it is
  // enabled: io_uring operations bypass seccomp, so without this a compromised fswatch could
  // write through the ring even though its filter forbids write(2). OPENAT cannot be limited to
  // read-only flags here; it is allowed only when Landlock refuses every write (write-lock.h),
  // otherwise files are opened with plain openat, which the seccomp filter does check.
  bool init() {
    if (io_uring_queue_init(RING_ENTRIES, &ring, IORING_SETUP_R_DISABLED) != 0) return false;
    initialised = true;
    io_uring_restriction allowed[5] = {};
    int count = 0;
    for (int op : {IORING_OP_OPENAT, IORING_OP_READ, IORING_OP_CLOSE}) {
      if (op == IORING_OP_OPENAT && !ringOpens) continue;
      allowed[count].opcode = IORING_RESTRICTION_SQE_OP;
      allowed[count++].sqe_op = static_cast<__u8>(op);
    }
    allowed[count].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
    allowed[count++].sqe_flags = IOSQE_ASYNC;
    // Debian's liburing 2.3 declares io_uring_register_restrictions/io_uring_enable_rings but
    // does not export them; the raw register call does the same.
    return io_uring_register(ring.ring_fd, IORING_REGISTER_RESTRICTIONS, allowed, count) >= 0 &&
           io_uring_register(ring.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0) >= 0;
  }

  void startSnapshot() override { ready.clear(); }

  HashOutcome hash(const std::vector<HashJob>& jobs, size_t index, uint64_t budget,
                   const SnapshotHooks& hooks) override {
    auto found = ready.find(index);
    if (found == ready.end()) {
      if (static_cast<uint64_t>(jobs[index].stat.size) > URING_SMALL_FILE_BYTES) {
        return streamLargeFiles ? streamHash(jobs[index], hooks)
                                : hashWithSyscalls(jobs[index], fallbackBuffer, hooks);
      }
      hashBatch(jobs, planBatch(jobs, index, budget), hooks);
      found = ready.find(index);
      KJ_ASSERT(found != ready.end(), "a batch always holds the job it was planned for");
    }
    HashOutcome outcome = std::move(found->second);
    ready.erase(found);
    return outcome;
  }

 private:
  const bool streamLargeFiles;
  const bool ringOpens;  // OPENAT is one of the ring's operations (RingOpen::ALLOWED)
  io_uring ring;
  bool initialised = false;

  // One small file of a batch, through the rounds of hashBatch().
  struct Slot {
    size_t job = 0;
    size_t offset = 0;  // of its bytes in `arena`
    int fd = -1;
    int openResult = -ECANCELED;
    int readResult = -ECANCELED;
    bool verified = false;  // the first fstat matched the walk's lstat
    EntryStat first;        // fstat after the open
    EntryStat last;         // fstat after the read
  };
  std::vector<Slot> slots;
  std::vector<char> arena;
  std::unordered_map<size_t, HashOutcome> ready;  // hashed ahead, by job index
  std::vector<char> blocks[2];                    // streaming double buffer
  std::vector<char> fallbackBuffer;               // for hashWithSyscalls

  io_uring_sqe* nextSqe() {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    KJ_ASSERT(sqe != nullptr, "io_uring submission queue full");
    return sqe;
  }

  // Submits what was prepared and reaps exactly `expected` completions.
  template <typename Func>
  void complete(size_t expected, Func&& onCompletion) {
    size_t done = 0;
    while (done < expected) {
      int result = io_uring_submit_and_wait(&ring, static_cast<unsigned>(expected - done));
      if (result < 0) {
        if (result == -EINTR) continue;
        KJ_FAIL_SYSCALL("io_uring_submit_and_wait", -result);
      }
      io_uring_cqe* cqe;
      unsigned head;
      unsigned seen = 0;
      io_uring_for_each_cqe(&ring, head, cqe) {
        onCompletion(cqe->user_data, cqe->res);
        ++seen;
      }
      io_uring_cq_advance(&ring, seen);
      done += seen;
    }
  }

  // The jobs from `index` on that the one-pass walk would hash if every hash before them
  // succeeds. A failure can only leave more budget, so each planned job will be asked for; a job
  // skipped here for lack of budget is hashed on its own if an earlier failure makes room.
  std::vector<size_t> planBatch(const std::vector<HashJob>& jobs, size_t index, uint64_t budget) {
    std::vector<size_t> batch;
    uint64_t left = budget;
    uint64_t bytes = 0;
    size_t end = std::min(jobs.size(), index + BATCH_SCAN);
    for (size_t j = index; j < end && batch.size() < BATCH_FILES; ++j) {
      auto size = static_cast<uint64_t>(jobs[j].stat.size);
      if (size > left) continue;
      left -= size;
      if (size > URING_SMALL_FILE_BYTES) continue;  // hashed on its own when asked for
      if (!batch.empty() && bytes + size + 1 > BATCH_BYTES) break;
      batch.push_back(j);
      bytes += size + 1;
    }
    return batch;
  }

  // Three submissions for the whole batch: open all; (fstat each) read the verified ones whole,
  // one byte more than the size, to see growth; (fstat each again) close all. Nothing is read
  // from a file before its fstat proved it is still the regular file the walk saw. Without
  // OPENAT on the ring the opens are plain openat calls and the other two rounds stay batched.
  void hashBatch(const std::vector<HashJob>& jobs, const std::vector<size_t>& batch,
                 const SnapshotHooks& hooks) {
    slots.assign(batch.size(), Slot());
    size_t bytes = 0;
    for (size_t k = 0; k < batch.size(); ++k) {
      slots[k].job = batch[k];
      slots[k].offset = bytes;
      bytes += static_cast<size_t>(jobs[batch[k]].stat.size) + 1;
    }
    if (arena.size() < bytes) arena.resize(bytes);

    auto opened = [&](uint64_t k, int result) {
      slots[k].openResult = result;
      if (result >= 0) slots[k].fd = result;
    };
    if (ringOpens) {
      for (size_t k = 0; k < slots.size(); ++k) {
        io_uring_sqe* sqe = nextSqe();
        io_uring_prep_openat(sqe, AT_FDCWD, jobs[slots[k].job].path.c_str(), HASH_OPEN_FLAGS, 0);
        sqe->user_data = k;
      }
      complete(slots.size(), opened);
    } else {
      for (size_t k = 0; k < slots.size(); ++k)
        opened(k, openForHash(jobs[slots[k].job]));
    }

    // fstat with plain calls: the kernel runs every IORING_OP_STATX in an io-wq worker thread,
    // and on an idle machine waking workers and the waiting thread cost more than it saved
    // (bench/README.md). open, read and close complete inline, in the io_uring_enter.
    for (Slot& slot : slots) {
      if (slot.fd >= 0) slot.first = fstatFd(slot.fd);
    }

    size_t expected = 0;
    for (size_t k = 0; k < slots.size(); ++k) {
      Slot& slot = slots[k];
      if (slot.fd < 0 || slot.first.error != 0) continue;
      const HashJob& job = jobs[slot.job];
      slot.verified = openedUnchanged(job.stat, slot.first);
      if (!slot.verified) continue;
      io_uring_sqe* sqe = nextSqe();
      io_uring_prep_read(sqe, slot.fd, arena.data() + slot.offset,
                         static_cast<unsigned>(job.stat.size + 1), 0);
      sqe->user_data = k;
      ++expected;
    }
    complete(expected, [&](uint64_t k, int result) { slots[k].readResult = result; });
    if (hooks.afterRead) {
      for (const Slot& slot : slots) {
        if (slot.verified && slot.readResult >= 0) hooks.afterRead(jobs[slot.job].path);
      }
    }

    expected = 0;
    for (size_t k = 0; k < slots.size(); ++k) {
      Slot& slot = slots[k];
      if (slot.fd < 0) continue;
      if (slot.verified && slot.readResult >= 0) slot.last = fstatFd(slot.fd);
      io_uring_sqe* sqe = nextSqe();
      io_uring_prep_close(sqe, slot.fd);
      sqe->user_data = k;
      ++expected;
    }
    // A failed close still releases the descriptor; nothing was written, nothing is lost.
    complete(expected, [](uint64_t, int) {});

    for (const Slot& slot : slots)
      ready[slot.job] = evaluate(jobs[slot.job], slot, hooks);
  }

  HashOutcome evaluate(const HashJob& job, const Slot& slot, const SnapshotHooks& hooks) {
    // Too long a path for one openat: the plain path opens it name by name.
    if (slot.openResult == -ENAMETOOLONG) return hashWithSyscalls(job, fallbackBuffer, hooks);
    if (slot.openResult < 0) {
      int error = -slot.openResult;
      return isRaceErrno(error) ? HashOutcome::unstable() : HashOutcome::failed("open", error);
    }
    if (slot.first.error != 0) return HashOutcome::failed("fstat", slot.first.error);
    if (!slot.verified) return HashOutcome::unstable();
    if (slot.readResult < 0) return HashOutcome::failed("read", -slot.readResult);
    auto size = static_cast<uint64_t>(job.stat.size);
    auto got = static_cast<uint64_t>(slot.readResult);
    if (got > size) return HashOutcome::unstable();  // grew since fstat
    // A short read is not proof of a shrunk file: read it again the plain way, which loops.
    if (got < size) return hashWithSyscalls(job, fallbackBuffer, hooks);
    if (slot.last.error != 0) return HashOutcome::failed("fstat", slot.last.error);
    if (!sameSizeAndMtime(slot.first, slot.last)) {
      return HashOutcome::unstable();
    }
    return HashOutcome::hashed(
        evidence::sha256Hex(std::string_view(arena.data() + slot.offset, size)));
  }

  // A large file: read block k+1 (in an io-wq worker, IOSQE_ASYNC) while hashing block k.
  HashOutcome streamHash(const HashJob& job, const SnapshotHooks& hooks) {
    int fd = openForHash(job);
    if (fd < 0) {
      return isRaceErrno(-fd) ? HashOutcome::unstable() : HashOutcome::failed("open", -fd);
    }
    KJ_DEFER(close(fd));
    EntryStat first = fstatFd(fd);
    if (first.error != 0) return HashOutcome::failed("fstat", first.error);
    if (!openedUnchanged(job.stat, first)) return HashOutcome::unstable();

    for (auto& block : blocks) {
      if (block.size() < STREAM_BLOCK) block.resize(STREAM_BLOCK);
    }
    auto size = static_cast<uint64_t>(job.stat.size);
    auto submitRead = [&](int block, uint64_t offset) {
      size_t request = static_cast<size_t>(std::min<uint64_t>(STREAM_BLOCK, size + 1 - offset));
      io_uring_sqe* sqe = nextSqe();
      io_uring_prep_read(sqe, fd, blocks[block].data(), static_cast<unsigned>(request), offset);
      sqe->flags |= IOSQE_ASYNC;
      int submitted = io_uring_submit(&ring);
      if (submitted < 0) KJ_FAIL_SYSCALL("io_uring_submit", -submitted);
      return request;
    };
    auto waitRead = [&]() {
      int result = 0;
      complete(1, [&](uint64_t, int r) { result = r; });
      return result;
    };

    // Same reading rule as hashWithSyscalls: up to size + 1 bytes, a short read ending exactly
    // at the size is the end, a short read before it continues where the data stopped.
    evidence::Sha256 sha;
    uint64_t total = 0;
    int current = 0;
    size_t request = submitRead(current, 0);
    for (;;) {
      int n = waitRead();
      if (n == -EINTR || n == -EAGAIN) {
        request = submitRead(current, total);
        continue;
      }
      if (n < 0) return HashOutcome::failed("read", -n);
      if (hooks.afterRead) hooks.afterRead(job.path);
      if (n == 0) break;
      total += static_cast<uint64_t>(n);
      if (total > size) return HashOutcome::unstable();
      bool end = total == size && static_cast<size_t>(n) < request;
      if (!end) request = submitRead(1 - current, total);
      sha.update(blocks[current].data(), static_cast<size_t>(n));
      if (end) break;
      current = 1 - current;
    }
    if (total != size) return HashOutcome::unstable();
    EntryStat last = fstatFd(fd);
    if (last.error != 0) return HashOutcome::failed("fstat", last.error);
    if (!sameSizeAndMtime(first, last)) return HashOutcome::unstable();
    return HashOutcome::hashed(sha.finishHex());
  }
};

}  // namespace

std::unique_ptr<FileIo> newUringFileIo(bool streamLargeFiles, RingOpen ringOpen) {
  auto io = std::make_unique<UringFileIo>(streamLargeFiles, ringOpen);
  if (!io->init()) return nullptr;
  return io;
}

}  // namespace rea::helper
