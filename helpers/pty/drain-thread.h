#pragma once
// DrainThread: the one extra thread of rea-pty (STYLE §4). It owns the PTY master and does
// nothing but read it (64 KiB at a time) into a queue that the event loop empties when an
// eventfd wakes it. Each read becomes one chunk of valid UTF-8: a multibyte sequence split
// across reads is carried whole into the next chunk, ill-formed bytes become U+FFFD (B §6.3).
//
// It never waits for the loop (A11: rendering never slows the draining of the PTY). The raw
// limits of B §6.5 are applied here, as each chunk is read: a chunk that does not fit is
// counted and discarded at once, so the queue never holds more than `maxOutputBytes` (at most
// 10 MB) however far the loop (RPC, rendering) falls behind, and needs no back-pressure.
// Admission depends only on the sizes of the chunks in read order, so the result is the same as
// if the loop had decided.
//
// Lifetime: construct (the thread starts but waits), start() once the seccomp filter is loaded
// (no untrusted byte is read before it), stop() to end early; the destructor stops and joins.
// The thread ends by itself at EOF of the master (EIO: every slave fd closed, A10).
//
// Errors: a read error other than EIO ends the thread; take() reports it as `error`.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <kj/io.h>
#include <kj/string.h>
#include <mutex>
#include <string>
#include <thread>

namespace rea::helper {

class DrainThread {
 public:
  struct Limits {
    uint64_t maxOutputBytes;  // limits.output_bytes: accepted bytes (UTF-8, after U+FFFD)
  };

  DrainThread(kj::AutoCloseFd master, Limits limits);
  // Takes the master (non-blocking mode is set here) and starts the thread, which waits for
  // start() before its first read. Returns once the thread runs, so that a seccomp filter
  // loaded afterwards (with TSYNC) never meets the thread's start-up syscalls.

  ~DrainThread() noexcept(false);
  // stop() + join. The master is closed last.

  KJ_DISALLOW_COPY(DrainThread);

  int masterFd() const { return master.get(); }
  // For writes (input) and ioctls (resize) from the loop thread; reading is the thread's.

  int readyFd() const { return ready.get(); }
  // An eventfd (non-blocking): readable when chunks are queued or the thread has ended. Watch
  // it with a kj FdObserver; take() clears it.

  void start();
  // Releases the thread's first read. Once.

  void stop();
  // Asks the thread to read what the master holds right now (a bounded number of reads, so a
  // target that never stops writing cannot keep it busy), queue it and end. Idempotent.

  uint64_t requestSync();
  // Asks the thread to read until the master is empty and then say so: take() reports
  // `synced` >= the returned generation once every byte the master held when the thread saw
  // the request is queued. The loop's evidence that nothing read is still on its way, which a
  // timer cannot give: on a busy machine the thread can be off the CPU for longer than any
  // quiet period (a chunk read before the root's exit was queued after it, issue 17).

  struct Chunk {
    uint64_t atNs;     // CLOCK_MONOTONIC when the read returned
    std::string data;  // valid UTF-8, non-empty
  };

  struct Taken {
    std::deque<Chunk> chunks;    // accepted, within the limits
    uint64_t dropped = 0;        // chunks dropped by the limits so far (a running total)
    uint64_t lastDroppedNs = 0;  // when the latest of them was read (it is output all the same)
    bool ended = false;          // the thread has ended (EOF, stop() or an error); no more chunks
    bool eof = false;            // it ended because every slave fd was closed (EIO)
    uint64_t synced = 0;         // the latest requestSync() generation answered
    kj::Maybe<kj::String> error;
  };

  Taken take();
  // Everything queued so far (in read order). Call from the loop thread when readyFd() is
  // readable (and once more after `ended` is seen, which returns nothing new).

  static constexpr size_t READ_SIZE = 64 * 1024;
  static constexpr int STOP_READS = 64;
  // At stop(), at most this many further reads.

 private:
  kj::AutoCloseFd master;
  kj::AutoCloseFd ready;  // eventfd: thread -> loop
  kj::AutoCloseFd wake;   // eventfd: loop -> thread (stop, sync)

  const Limits limits;
  uint64_t acceptedBytes = 0;  // thread-only

  std::mutex mutex;
  std::condition_variable changed;
  bool running = false;  // the thread has started (and made its start-up syscalls)
  bool started = false;
  bool stopping = false;
  std::deque<Chunk> queue;
  uint64_t dropped = 0;
  uint64_t lastDroppedNs = 0;
  bool ended = false;
  bool eof = false;
  uint64_t syncRequested = 0;
  uint64_t syncAnswered = 0;
  std::string error;

  std::thread thread;  // last: starts after every member above is constructed

  void run();
  void push(uint64_t atNs, std::string data);
  void signalReady();
  uint64_t takeWake(bool& stopNow);
  void answerSync(uint64_t generation);
};

}  // namespace rea::helper
