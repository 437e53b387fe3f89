// The pty helper's drain thread (A10, A11): it keeps reading the master however long nobody
// takes its queue, and the raw limits of B §6.5, applied as it reads, bound that queue. A real
// PTY in raw mode (no ONLCR) and a forked writer; nothing here depends on machine speed but a
// generous deadline for the writer to finish.
#include "helpers/pty/drain-thread.h"

#include <gtest/gtest.h>
#include <kj/debug.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace rea::helper {
namespace {

constexpr auto DEADLINE = std::chrono::seconds(120);

std::string pattern(size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i)
    bytes[i] = char('a' + i % 26);
  return bytes;
}

struct Writer {
  pid_t pid;
  kj::AutoCloseFd master;
};

Writer startWriter(const std::string& bytes) {
  // The child writes `bytes` into the slave and exits; the slave's only other holder (this
  // process) closes it, so the master reads EIO once the child is gone.
  int masterFd, slaveFd;
  KJ_SYSCALL(openpty(&masterFd, &slaveFd, nullptr, nullptr, nullptr));
  struct termios raw;
  KJ_SYSCALL(tcgetattr(slaveFd, &raw));
  cfmakeraw(&raw);
  KJ_SYSCALL(tcsetattr(slaveFd, TCSANOW, &raw));
  pid_t pid;
  KJ_SYSCALL(pid = fork());
  if (pid == 0) {
    close(masterFd);
    for (size_t done = 0; done < bytes.size();) {
      ssize_t n = write(slaveFd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno != EINTR) _exit(1);
      if (n > 0) done += size_t(n);
    }
    _exit(0);
  }
  close(slaveFd);
  return {pid, kj::AutoCloseFd(masterFd)};
}

bool exitsWithinDeadline(pid_t pid) {
  // Only the writer's own progress decides: it can finish only if the master is being read.
  auto until = std::chrono::steady_clock::now() + DEADLINE;
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return false;
}

DrainThread::Taken takeUntilEnded(DrainThread& drain) {
  DrainThread::Taken all;
  auto until = std::chrono::steady_clock::now() + DEADLINE;
  while (!all.ended && std::chrono::steady_clock::now() < until) {
    struct pollfd ready = {drain.readyFd(), POLLIN, 0};
    poll(&ready, 1, 100);  // the drop-only tail signals nothing: poll with a period
    auto taken = drain.take();
    for (auto& chunk : taken.chunks)
      all.chunks.push_back(kj::mv(chunk));
    all.dropped = taken.dropped;
    all.lastDroppedNs = taken.lastDroppedNs;
    all.ended = taken.ended;
    all.eof = taken.eof;
    all.error = kj::mv(taken.error);
  }
  EXPECT_TRUE(all.ended) << "the drain thread did not reach EOF";
  return all;
}

std::string joined(const DrainThread::Taken& taken) {
  std::string all;
  for (auto& chunk : taken.chunks)
    all += chunk.data;
  return all;
}

TEST(DrainThread, KeepsReadingWhileNobodyTakesItsQueue) {
  // 24 MiB is more than the PTY's buffer plus any queue bound a back-pressured drain could
  // have: the writer only gets through it if the thread reads without waiting for take().
  std::string bytes = pattern(24 << 20);
  Writer writer = startWriter(bytes);
  DrainThread drain(kj::mv(writer.master), DrainThread::Limits{64 << 20});
  drain.start();
  ASSERT_TRUE(exitsWithinDeadline(writer.pid))
      << "the writer blocked on a full PTY: the drain stopped reading while its queue waited";
  auto taken = takeUntilEnded(drain);
  EXPECT_TRUE(taken.eof);
  EXPECT_TRUE(taken.error == nullptr);
  EXPECT_EQ(taken.dropped, 0u);
  std::string all = joined(taken);
  EXPECT_EQ(all.size(), bytes.size());
  EXPECT_TRUE(all == bytes) << "bytes lost or reordered";  // A10: every byte, in order
}

TEST(DrainThread, TheByteLimitBoundsTheQueueAndDropsWholeChunks) {
  constexpr uint64_t LIMIT = 1000000;
  std::string bytes = pattern(8 << 20);
  Writer writer = startWriter(bytes);
  DrainThread drain(kj::mv(writer.master), DrainThread::Limits{LIMIT});
  drain.start();
  ASSERT_TRUE(exitsWithinDeadline(writer.pid));
  auto taken = takeUntilEnded(drain);
  EXPECT_TRUE(taken.eof);
  EXPECT_GT(taken.dropped, 0u);
  EXPECT_GT(taken.lastDroppedNs, 0u);
  std::string all = joined(taken);
  EXPECT_LE(all.size(), LIMIT) << "the queue held more than limits.output_bytes";
  // Chunks are accepted in read order until the first that does not fit (at most READ_SIZE):
  // everything before it is the stream's exact prefix.
  size_t prefix = LIMIT - DrainThread::READ_SIZE;
  ASSERT_GE(all.size(), prefix);
  EXPECT_TRUE(all.compare(0, prefix, bytes, 0, prefix) == 0);
  for (auto& chunk : taken.chunks)
    EXPECT_LE(chunk.data.size(), DrainThread::READ_SIZE);
}

TEST(DrainThread, TheNumberOfReadsDropsNothing) {
  // A15: only bytes count here; reads past limits.frames are joined by the supervisor.
  std::string bytes = pattern(1 << 20);
  Writer writer = startWriter(bytes);
  DrainThread drain(kj::mv(writer.master), DrainThread::Limits{64 << 20});
  drain.start();
  ASSERT_TRUE(exitsWithinDeadline(writer.pid));
  auto taken = takeUntilEnded(drain);
  EXPECT_GT(taken.chunks.size(), 3u);
  EXPECT_EQ(taken.dropped, 0u);
  EXPECT_EQ(joined(taken), bytes);
}

TEST(DrainThread, ASyncIsAnsweredOnlyAfterEveryByteTheMasterHeldIsQueued) {
  // The slave stays open here (a descendant holding the terminal): no EIO ends the thread, and
  // only the sync says that what was written before it has been read (pty-job's exit report).
  int masterFd, slaveFd;
  KJ_SYSCALL(openpty(&masterFd, &slaveFd, nullptr, nullptr, nullptr));
  kj::AutoCloseFd slave(slaveFd);
  struct termios raw;
  KJ_SYSCALL(tcgetattr(slaveFd, &raw));
  cfmakeraw(&raw);
  KJ_SYSCALL(tcsetattr(slaveFd, TCSANOW, &raw));
  DrainThread drain(kj::AutoCloseFd(masterFd), DrainThread::Limits{10000000});
  drain.start();
  std::string all;
  for (const std::string& written : {pattern(10), pattern(200000), std::string("last")}) {
    for (size_t done = 0; done < written.size();) {
      // The master is drained meanwhile, so the slave's buffer frees up.
      ssize_t n = write(slaveFd, written.data() + done, written.size() - done);
      ASSERT_TRUE(n > 0 || errno == EINTR || errno == EAGAIN) << strerror(errno);
      if (n > 0) done += size_t(n);
    }
    all += written;
    uint64_t generation = drain.requestSync();
    std::string read;
    bool synced = false;
    auto until = std::chrono::steady_clock::now() + DEADLINE;
    while (!synced && std::chrono::steady_clock::now() < until) {
      struct pollfd ready = {drain.readyFd(), POLLIN, 0};
      poll(&ready, 1, 100);
      auto taken = drain.take();
      ASSERT_FALSE(taken.ended);
      for (auto& chunk : taken.chunks)
        read += chunk.data;
      synced = taken.synced >= generation;
    }
    ASSERT_TRUE(synced) << "no answer to sync " << generation;
    EXPECT_EQ(read.size(), written.size()) << "sync " << generation;
    EXPECT_EQ(read, written) << "sync " << generation;
  }
}

}  // namespace
}  // namespace rea::helper
