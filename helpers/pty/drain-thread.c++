#include "helpers/pty/drain-thread.h"

#include <errno.h>
#include <fcntl.h>
#include <kj/debug.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <utility>

#include "evidence/utf.h"
#include "helpers/common/clock.h"

namespace rea::helper {

namespace {

kj::AutoCloseFd newEventFd() {
  int fd;
  KJ_SYSCALL(fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), "drain eventfd");
  return kj::AutoCloseFd(fd);
}

kj::AutoCloseFd nonBlocking(kj::AutoCloseFd fd) {
  int flags;
  KJ_SYSCALL(flags = fcntl(fd.get(), F_GETFL), "pty master");
  KJ_SYSCALL(fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK), "pty master");
  return fd;
}

void bump(int fd) {
  uint64_t one = 1;
  // EAGAIN only when the counter is near overflow: it is readable then anyway.
  ssize_t n = ::write(fd, &one, sizeof(one));
  (void)n;
}

}  // namespace

DrainThread::DrainThread(kj::AutoCloseFd masterFd, Limits limits)
    : master(nonBlocking(kj::mv(masterFd))),
      ready(newEventFd()),
      wake(newEventFd()),
      limits(limits),
      thread([this]() { run(); }) {
  // Wait until the thread runs: its start-up syscalls (rseq, set_robust_list) must happen
  // before the seccomp filter is loaded, which does not allow them.
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [this]() { return running; });
}

DrainThread::~DrainThread() noexcept(false) {
  stop();
  {
    // Never started (start-up failed): let the thread run to its stop check.
    std::lock_guard<std::mutex> lock(mutex);
    started = true;
  }
  changed.notify_all();
  if (thread.joinable()) thread.join();
}

void DrainThread::start() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    KJ_REQUIRE(!started, "drain thread started twice");
    started = true;
  }
  changed.notify_all();
}

void DrainThread::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping) return;
    stopping = true;
  }
  changed.notify_all();
  bump(wake.get());
}

uint64_t DrainThread::requestSync() {
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mutex);
    generation = ++syncRequested;
  }
  bump(wake.get());
  return generation;
}

uint64_t DrainThread::takeWake(bool& stopNow) {
  // Clear first, then read the requests: one made in between is seen now and only causes a
  // spurious wake-up later. Stop is sticky (stopping stays set), so clearing never loses it.
  uint64_t counter;
  ssize_t n = ::read(wake.get(), &counter, sizeof(counter));
  (void)n;
  std::lock_guard<std::mutex> lock(mutex);
  stopNow = stopping;
  return syncRequested;
}

void DrainThread::answerSync(uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (generation <= syncAnswered) return;
    syncAnswered = generation;
  }
  signalReady();
}

DrainThread::Taken DrainThread::take() {
  uint64_t counter;
  // Clear first, then take: a chunk pushed in between is taken now and only causes a spurious
  // wake-up later, never a lost one.
  ssize_t n = ::read(ready.get(), &counter, sizeof(counter));
  (void)n;
  Taken taken;
  {
    std::lock_guard<std::mutex> lock(mutex);
    taken.chunks.swap(queue);
    taken.dropped = dropped;
    taken.lastDroppedNs = lastDroppedNs;
    taken.ended = ended;
    taken.eof = eof;
    taken.synced = syncAnswered;
    if (!error.empty()) taken.error = kj::str(error.c_str());
  }
  return taken;
}

void DrainThread::push(uint64_t atNs, std::string data) {
  // B §6.5 step 2 as A15 changes it: a chunk over the byte limit is dropped whole (a later,
  // smaller one may still fit); the frame count drops nothing (the supervisor joins reads past
  // limits.frames to the last frame). Never waits: only the queue's mutex, which take() holds
  // for a swap.
  if (acceptedBytes + data.size() > limits.maxOutputBytes) {
    std::lock_guard<std::mutex> lock(mutex);
    ++dropped;
    lastDroppedNs = atNs;
    return;  // no wake-up: the watchdog's next take() sees it, nothing else needs it sooner
  }
  acceptedBytes += data.size();
  {
    std::lock_guard<std::mutex> lock(mutex);
    queue.push_back(Chunk{atNs, kj::mv(data)});
  }
  signalReady();
}

void DrainThread::signalReady() {
  bump(ready.get());
}

void DrainThread::run() {
  {
    std::unique_lock<std::mutex> lock(mutex);
    running = true;
    changed.notify_all();
    changed.wait(lock, [this]() { return started; });
  }
  std::string carry;  // an incomplete UTF-8 sequence at the end of the previous read
  auto buffer = kj::heapArray<char>(READ_SIZE);
  bool isEof = false;
  std::string failure;
  int stopReads = -1;       // counts down once stop() was seen
  uint64_t syncWanted = 0;  // a requestSync() generation to answer once the master is empty

  for (;;) {
    if (stopReads < 0) {
      struct pollfd fds[2] = {{master.get(), POLLIN, 0}, {wake.get(), POLLIN, 0}};
      int n = ::poll(fds, 2, -1);
      if (n < 0) {
        if (errno == EINTR) continue;
        failure = kj::str("poll: ", strerrordesc_np(errno)).cStr();
        break;
      }
      if (fds[1].revents != 0) {
        bool stopNow = false;
        syncWanted = takeWake(stopNow);
        if (stopNow) stopReads = STOP_READS;
      }
      // A sync reads even when poll saw nothing: the read (non-blocking) is what proves the
      // master empty (n_tty flushes the pty's pending buffer before it answers EAGAIN).
      if (fds[0].revents == 0 && syncWanted == 0) continue;
    } else if (stopReads-- == 0) {
      break;
    }

    ssize_t n = ::read(master.get(), buffer.begin(), buffer.size());
    uint64_t atNs = monotonicNowNs();
    if (n > 0) {
      std::string data = kj::mv(carry);
      carry.clear();
      data.append(buffer.begin(), size_t(n));
      // Coalesce what the master already holds into this chunk (up to READ_SIZE): the kernel
      // hands out PTY output in small pieces when the machine is busy, and one chunk per tiny
      // read would exhaust `limits.frames` long before `limits.output_bytes` (B §6.5). This is
      // the same as one larger read; nothing waits for data that is not there yet.
      bool sawEof = false;
      bool empty = false;  // the master held nothing more when the chunk was complete
      while (data.size() < READ_SIZE) {
        struct pollfd more = {master.get(), POLLIN, 0};
        if (::poll(&more, 1, 0) <= 0 || (more.revents & POLLIN) == 0) {
          empty = true;
          break;
        }
        ssize_t extra = ::read(master.get(), buffer.begin(), READ_SIZE - data.size());
        if (extra > 0) {
          data.append(buffer.begin(), size_t(extra));
        } else {
          if (extra == 0 || errno == EIO) sawEof = true;
          empty = !sawEof;
          break;
        }
      }
      size_t complete = evidence::completeUtf8Prefix(data);
      if (complete < data.size()) {
        carry.assign(data, complete, std::string::npos);
        data.resize(complete);
      }
      if (!data.empty()) push(atNs, evidence::sanitizeUtf8(data));
      if (sawEof) {
        isEof = true;
        break;
      }
      if (empty && syncWanted != 0) answerSync(std::exchange(syncWanted, 0));
    } else if (n == 0 || errno == EIO) {
      isEof = true;  // every slave fd is closed
      break;
    } else if (errno == EAGAIN || errno == EINTR) {
      if (errno == EAGAIN && syncWanted != 0) answerSync(std::exchange(syncWanted, 0));
      if (stopReads >= 0) break;  // stop(): the master holds nothing more right now
    } else {
      failure = kj::str("read pty master: ", strerrordesc_np(errno)).cStr();
      break;
    }
  }

  // An incomplete sequence at the very end is ill-formed: it becomes U+FFFD.
  if (!carry.empty()) push(monotonicNowNs(), evidence::sanitizeUtf8(carry));
  {
    std::lock_guard<std::mutex> lock(mutex);
    ended = true;
    eof = isEof;
    error = kj::mv(failure);
  }
  signalReady();
}

}  // namespace rea::helper
