#pragma once
// PtyJob: the pty helper's job, free of RPC so that the server, --standalone and the unit tests
// run the same code. Owns the target (its pidfd), the drain thread (and through it the PTY
// master), the interaction timers and the watchdog. What it observes goes to a PtyJobSink as
// plain events stamped with CLOCK_MONOTONIC and emitted in non-decreasing time order:
//   - output: every PTY read as valid UTF-8, within the byte limit (SPEC B §6.5, A15: reads
//     past limits.frames are not dropped, the supervisor joins them to the last frame); a
//     dropped chunk sets `truncated` and still counts as output for the idle watchdog;
//   - dispatched: each interaction event when it fires `atMs` after the spawn (A2), or, for an
//     event that waits, when the supervisor releases it (after the previous event): input is
//     written to the master, resize is TIOCSWINSZ, signal goes to the root pid only; at the
//     root's exit every event not yet fired is reported TARGET_EXITED (B §6.4);
//   - exited: the root reaped (pidfd + waitid), with the watchdog's reason (B §6.6.1, A4),
//     reported only after everything the root wrote before its exit was emitted (A15): once the
//     PTY drained to EIO or, while a descendant still holds the PTY, once no read arrived for
//     100 ms (at most 1 s after the reap); stamped at the reap, moved after that output;
//   - rendered: the terminal emulator's frame (B §6.11, A11) right after each accepted output
//     chunk (that chunk's time) and each dispatched resize (the dispatch's time), within the
//     rendered budget (config.renderMaxFrames/renderMaxBytes, counted apart from the raw one);
//   - replied: a terminal query in the output (DA, DSR...) answered back to the PTY master.
// Rendering runs on the loop thread, beside the drain thread that alone reads the master: a
// slow frame delays the loop, never a read (A11; the drain thread applies the raw limits, so
// its queue stays within limits.output_bytes without ever waiting for the loop). Once the
// rendered budget is spent the renderer stops emulating and only scans for queries.
// Output keeps coming after the exit until EIO (A10) or finish().
//
// Errors: start() throws FAILED on an invalid config or when the target cannot be spawned;
// afterwards failures are data (a failed dispatch) or fail the job's failure promise (the drain
// thread's read error).

#include <cstdint>
#include <kj/async-io.h>
#include <optional>
#include <kj/function.h>
#include <string>
#include <sys/types.h>
#include <vector>

#include "evidence/limits.h"
#include "helpers/pty/screen-queries.h"
#include "helpers/pty/screen-renderer.h"

namespace rea::helper {

struct PtyJobInteraction {
  enum class Type { INPUT, RESIZE, SIGNAL };
  Type type = Type::INPUT;
  uint64_t atMs = 0;
  std::string data;           // INPUT
  uint16_t columns = 0;       // RESIZE
  uint16_t rows = 0;          // RESIZE
  int signal = 0;             // SIGNAL: SIGINT, SIGTERM or SIGKILL
  bool waits = false;         // held at its turn until release() (a reactive event)
  bool waitsForExit = false;  // with `waits`: performed at the root's exit if held then
};

struct PtyJobConfig {
  std::string executable;
  std::vector<std::string> arguments;
  std::string workingDirectory;
  std::string executableObject;          // the checked executable object to exec; "" = by path
  std::vector<std::string> environment;  // NAME=VALUE, complete
  // Defaults and ranges of the sizes and limits below: evidence/limits.h.
  uint16_t columns = uint16_t(evidence::terminal::COLUMNS.defaultValue);
  uint16_t rows = uint16_t(evidence::terminal::ROWS.defaultValue);
  std::vector<PtyJobInteraction> events;  // events that do not wait are sorted by atMs
  uint64_t timeoutMs = uint64_t(evidence::timing::TIMEOUT_MS.defaultValue);
  uint64_t idleTimeoutMs = uint64_t(evidence::timing::IDLE_TIMEOUT_MS.defaultValue);
  uint64_t t0Ns = 0;  // CLOCK_MONOTONIC; 0 = the moment start() is called
  uint32_t maxFrames = uint32_t(evidence::limit::FRAMES.defaultValue);
  uint64_t maxOutputBytes = uint64_t(evidence::limit::OUTPUT_BYTES.defaultValue);
  std::string netnsPath;   // A9: the target joins this network namespace (TargetSpec)
  std::string usernsPath;  // and this user namespace first
  // terminal.scrollback rows
  uint32_t scrollback = uint32_t(evidence::terminal::SCROLLBACK.defaultValue);
  // The rendered budget (B §6.11): limits.frames and limits.output_bytes.
  uint32_t renderMaxFrames = uint32_t(evidence::limit::FRAMES.defaultValue);
  uint64_t renderMaxBytes = uint64_t(evidence::limit::OUTPUT_BYTES.defaultValue);
  std::string cgroupPath;     // "" = no capture cgroup (TargetSpec::cgroupPath)
  std::string pidsGroupPath;  // "" = none to join (TargetSpec::pidsGroupPath)
  bool execNotify = false;    // install the exec filter (TargetSpec::execChannel)
};

void validatePtyJobConfig(const PtyJobConfig& config);
// Throws FAILED naming the first field out of range (the supervisor checked it already: this is
// the helper not trusting its caller either).

struct PtyJobEvent {
  enum class Kind { OUTPUT, DISPATCHED, EXITED, RENDERED, REPLIED };
  enum class Outcome { DISPATCHED, FAILED, TARGET_EXITED, TIMED_OUT };
  enum class Reason { EXITED, TIMEOUT, IDLE_TIMEOUT };

  PtyJobEvent(Kind kind, uint64_t atNs) : kind(kind), atNs(atNs) {}

  Kind kind;
  uint64_t atNs;
  std::string output;       // OUTPUT: valid UTF-8, non-empty
  uint32_t eventIndex = 0;  // DISPATCHED
  Outcome outcome = Outcome::DISPATCHED;
  bool exitedNormally = true;  // EXITED: true -> `status` is an exit code, else a signal number
  int status = 0;
  Reason reason = Reason::EXITED;
  std::optional<RenderedScreen> rendered;  // RENDERED
  QueryReply reply;                        // REPLIED: what was answered and written
};

class PtyJobSink {
 public:
  virtual ~PtyJobSink() noexcept(false) = default;
  virtual void event(PtyJobEvent&& event) = 0;
  // Called from the event loop, in time order. Must not call back into the job.

  virtual bool wantsMore() { return true; }
  virtual kj::Promise<void> whenWantsMore() { return kj::READY_NOW; }
  // Flow control between the loop and the sink, never towards the target (the drain thread
  // keeps reading, A11): while wantsMore() is false the job keeps further output chunks as they
  // were read, unrendered, and goes on once whenWantsMore() resolves. A chunk's events (its
  // output, its rendered frame with the scrollback's serialized state, the replies) take one to
  // four times its size, and rendering outruns the RPC to the supervisor: without this they
  // piled up in the helper (megabytes at once) while the supervisor held the same output too.
  // Output read before a loop-side event (a dispatch, the exit) is still emitted before it.
};

struct PtyJobSummary {
  bool truncated = false;
  uint64_t droppedChunks = 0;
  bool renderTruncated = false;  // the rendered budget dropped a frame
  uint32_t renderedFrames = 0;   // RENDERED events emitted
};

class PtyJob {
 public:
  static kj::Own<PtyJob> start(kj::AsyncIoContext& io, PtyJobConfig config, PtyJobSink& sink,
                               kj::Function<void()> afterSpawn);
  // Validates the config, spawns the target, calls `afterSpawn` (the helper's lock-down: the
  // target is already forked and no output has been read yet), then starts draining and arms
  // the events and the watchdog. `sink` outlives the job.

  virtual ~PtyJob() noexcept(false) = default;
  // Destroying a job whose root still runs SIGKILLs and reaps it.

  virtual pid_t rootPid() const = 0;
  virtual uint64_t spawnedAtNs() const = 0;

  virtual void writeToTarget(std::string bytes) = 0;
  // Queues bytes for the PTY master after any input not yet written, as if typed: the
  // renderer's answers to terminal queries (DA, DSR). Dropped once the root has exited.

  virtual void release(uint32_t eventIndex, bool timedOut, bool stop) = 0;
  // Lets a waiting event go (schema/pty.capnp PtyJob.release): performed at its turn (at once
  // when it is already held), or reported TIMED_OUT; `stop` then ends the run like the
  // watchdog's timeout. Ignored for an unknown index, an event that does not wait, a second
  // release, or after the root's exit.

  virtual kj::Promise<void> whenExited() = 0;
  // Resolves after the exit event was emitted.

  virtual kj::Promise<void> whenDrained() = 0;
  // Resolves once the master reached EOF (every slave fd closed) or draining was stopped.

  virtual kj::Promise<PtyJobSummary> finish() = 0;
  // SIGKILLs the root if it still runs and waits for its exit event; stops draining after what
  // the master holds now; emits the rest. Once; a second call throws FAILED.

  virtual kj::Promise<void> whenFailed() = 0;
  // Rejects if the job breaks (the drain thread's read error); never resolves otherwise.
};

}  // namespace rea::helper
