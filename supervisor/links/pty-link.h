#pragma once
// PtyLink: the supervisor's one connection to the pty helper (rea-pty). Owns the helper process,
// its Cap'n Proto connection and the background tasks receiving its event stream, and is the
// only supervisor code that reads schema/pty.capnp types: every event is converted to the plain
// structs below and checked on the way in (timestamps never decrease and never lie in the
// future; output chunks non-empty, valid UTF-8 and within the frame/byte limits; event indices
// known and reported once; one exit, consistent with its reason). A helper that breaks a rule is
// killed and reported as a fault, exactly like a helper that dies (A13).
//
// Typical use (one link per capture, one event loop):
//   PtyLink link(io, defaultHelperDirectory(), observer);
//   PtySpawn spawn = link.start(launch).wait(ws);          // target is running
//   std::optional<PtyExit> exit = link.whenExited().wait(ws);
//   ... settlement ...
//   link.finish().wait(ws);                                 // stream complete, helper gone
//   const PtyRecord& r = link.record();                     // frames, interactions, fault
//
// Errors: start() rejects (FAILED, with the helper's reason) when the helper cannot be spawned
// or refuses the launch (bad config, no PTY, fork failure), or (DISCONNECTED) when it died
// before answering; record().fault says how it ended. After a successful start nothing throws:
// losing the helper is data (record().fault) and every promise still resolves, never hangs.

#include <cstdint>
#include <kj/async-io.h>
#include <kj/time.h>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "evidence/limits.h"
#include "supervisor/links/helper-process.h"

namespace rea::supervisor {

// ---- What the supervisor asks for --------------------------------------------------------

struct PtyInteraction {
  // One scenario event (SPEC B §3.2); fired `atMs` after the spawn (A2).
  enum class Type { INPUT, RESIZE, SIGNAL };
  Type type = Type::INPUT;
  uint64_t atMs = 0;
  std::string data;      // INPUT: the exact bytes written to the PTY
  uint16_t columns = 0;  // RESIZE: evidence::terminal::COLUMNS range
  uint16_t rows = 0;     // RESIZE: evidence::terminal::ROWS range
  int signal = 0;        // SIGNAL: SIGINT, SIGTERM or SIGKILL, sent to the root pid only
  bool waits = false;    // reactive: held at its turn until PtyLink::release (`atMs` = earliest)
  bool waitsForExit = false;  // with `waits`: performed at the root's exit if held then
};

struct PtyLaunch {
  std::string executable;              // path; no PATH search when it contains '/'
  std::vector<std::string> arguments;  // argv[1..]
  std::string workingDirectory;
  std::string executableObject;          // the checked executable (checked-paths.h); "" = by path
  std::vector<std::string> environment;  // NAME=VALUE, the target's complete environment (B §6.3)
  // Defaults and ranges of the sizes and limits below: evidence/limits.h.
  uint16_t columns = uint16_t(evidence::terminal::COLUMNS.defaultValue);
  uint16_t rows = uint16_t(evidence::terminal::ROWS.defaultValue);
  std::vector<PtyInteraction> events;  // scenario order; index = PtyDispatch::eventIndex
  uint64_t timeoutMs = 0;              // watchdog, measured from t0Ns (B §6.6.1)
  uint64_t idleTimeoutMs = 0;          // watchdog, last output starts at t0Ns
  uint64_t t0Ns = 0;                   // the capture's T0, CLOCK_MONOTONIC ns
  uint32_t maxFrames = uint32_t(evidence::limit::FRAMES.defaultValue);             // B §6.5
  uint64_t maxOutputBytes = uint64_t(evidence::limit::OUTPUT_BYTES.defaultValue);  // B §6.5
  std::string netnsPath;   // A9 (ReplayStart): the target joins this network namespace
  std::string usernsPath;  // and, first, this user namespace (empty: none)
  // terminal.scrollback (B §6.11)
  uint32_t scrollback = uint32_t(evidence::terminal::SCROLLBACK.defaultValue);
  // The rendered budget (B §6.11): limits.frames and limits.output_bytes.
  uint32_t renderMaxFrames = uint32_t(evidence::limit::FRAMES.defaultValue);
  uint64_t renderMaxBytes = uint64_t(evidence::limit::OUTPUT_BYTES.defaultValue);
  std::string cgroupPath;     // the sampler's capture cgroup; "" = none (A8)
  std::string pidsGroupPath;  // a v1 pids group to join (SamplerPrepared); "" = none
  bool execNotify = false;    // the target installs the exec filter (SamplerPrepared)
};
// Its field types, as pty.capnp's, hold every value evidence/limits.h allows.
static_assert(evidence::terminal::COLUMNS.max <= UINT16_MAX &&
              evidence::terminal::ROWS.max <= UINT16_MAX);
static_assert(evidence::limit::FRAMES.max <= UINT32_MAX);

// ---- What the helper reports (already validated) -----------------------------------------

struct PtySpawn {
  pid_t rootPid = 0;  // = pgid = sid of the target
  uint64_t atNs = 0;  // CLOCK_MONOTONIC
};

struct PtyChunk {
  // One accepted PTY read (B §6.5 step 3 before normalisation): valid UTF-8, never empty.
  uint64_t atNs = 0;
  std::string data;
};

struct PtyDispatch {
  enum class Outcome { DISPATCHED, FAILED, TARGET_EXITED, TIMED_OUT };
  uint32_t eventIndex = 0;  // index into PtyLaunch::events
  uint64_t atNs = 0;        // when it fired; for TARGET_EXITED the exit time; for TIMED_OUT
                            // (a waiting event released as timed out) the release time
  Outcome outcome = Outcome::DISPATCHED;
};

struct PtyRenderedFrame {
  // The emulator's state after an accepted chunk or a dispatched resize (B §6.11), before
  // normalisation. Checked: size in the terminal range, `lines.size() == rows`, cursor on the
  // screen, text valid UTF-8, times in stream order, within the rendered budget.
  uint64_t atNs = 0;
  int columns = 0;
  int rows = 0;
  int cursorX = 0;  // 0-based, < columns
  int cursorY = 0;  // 0-based, < rows, relative to the top visible row
  bool alternate = false;
  std::vector<std::string> lines;  // untrimmed, padded to `columns` UTF-16 code units
  std::string serializedState;
  uint64_t bytesBefore = 0;  // accepted output bytes received before this frame
  // In PtyRecord::rendered every frame but the newest is held packed while the capture runs
  // (rendered-pack.h: a delta against the frame before it): `lines` and `serializedState` are
  // then empty and `packed` holds both. RenderedUnpacker / unpackRenderedFrames restore them.
  bool isPacked = false;
  std::string packed;
};

struct PtyAutoReply {
  // A terminal query the target sent, answered by the helper's renderer (written to the PTY).
  uint64_t atNs = 0;
  std::string query;  // "DA", "DA2", "DSR-status", "DSR-cursor", ... (screen-queries.h)
  std::string reply;  // the bytes written
};

struct PtyExit {
  // The root's end, as the helper reaped it (A4 mapping is the supervisor's job).
  enum class Reason { EXITED, TIMEOUT, IDLE_TIMEOUT };
  uint64_t atNs = 0;
  std::optional<int> code;    // set when it exited normally
  std::optional<int> signal;  // set when a signal killed it (9 for a watchdog kill)
  Reason reason = Reason::EXITED;
};

struct PtyRecord {
  // Everything the link received, in stream order. Complete once finish() has resolved.
  std::optional<PtySpawn> spawn;
  std::vector<PtyChunk> output;
  std::vector<PtyDispatch> interactions;   // in the order the helper reported them
  std::vector<PtyRenderedFrame> rendered;  // in stream order
  std::vector<PtyAutoReply> autoReplies;   // in stream order
  bool renderTruncated = false;            // the rendered budget dropped frames (B §6.11)
  std::optional<PtyExit> exit;
  bool streamDone = false;             // the helper ended its stream with done()
  bool outputTruncated = false;        // raw frames dropped by the frame/byte limit (B §4.8)
  uint64_t droppedChunks = 0;          // how many
  std::optional<HelperFault> fault;    // set when the helper was lost before its job was done
  std::optional<HelperEnd> helperEnd;  // how the helper process ended (after finish())
};

class PtyObserver {
  // Live notifications, called from the event loop as batches arrive (before whenExited()
  // resolves for the exit). Implementations must not destroy the link from a callback.
 public:
  virtual ~PtyObserver() noexcept(false) = default;
  virtual void output(const PtyChunk& /*chunk*/) {}
  virtual void dispatched(const PtyDispatch& /*dispatch*/) {}
  virtual void exited(const PtyExit& /*exit*/) {}
  virtual void rendered(const PtyRenderedFrame& /*frame*/) {}
  virtual void lost(const HelperFault& /*fault*/) {}
  // The helper was lost; `fault.end` may not be known yet.
};

class PtyObserverFanOut final : public PtyObserver {
  // Passes every notification on to each added observer, in the order they were added (the
  // link takes one observer; a capture has several: checkpoints, the progress line). Does not
  // own them; each must outlive the link.
 public:
  void add(PtyObserver& observer) { observers.push_back(&observer); }
  void output(const PtyChunk& chunk) override {
    for (auto* o : observers)
      o->output(chunk);
  }
  void dispatched(const PtyDispatch& dispatch) override {
    for (auto* o : observers)
      o->dispatched(dispatch);
  }
  void exited(const PtyExit& exit) override {
    for (auto* o : observers)
      o->exited(exit);
  }
  void rendered(const PtyRenderedFrame& frame) override {
    for (auto* o : observers)
      o->rendered(frame);
  }
  void lost(const HelperFault& fault) override {
    for (auto* o : observers)
      o->lost(fault);
  }

 private:
  std::vector<PtyObserver*> observers;
};

class PtyLink {
 public:
  explicit PtyLink(kj::AsyncIoContext& io, std::string helperDirectory = defaultHelperDirectory(),
                   kj::Maybe<PtyObserver&> observer = nullptr);
  // `helperDirectory` holds rea-pty. The observer (optional) outlives the link.

  ~PtyLink() noexcept(false);
  // Kills the helper if it still runs (its target dies with it: PR_SET_PDEATHSIG).

  KJ_DISALLOW_COPY(PtyLink);

  void setExecChannel(kj::AutoCloseFd channel);
  // Before the helper is spawned: the pty helper's end of the exec channel (passed as fd 4,
  // closed here once it is spawned).
  void spawnEarly();
  // Optional, before start(): spawns rea-pty and sends its RPC bootstrap now, so that the
  // helper's start-up (exec, dynamic linking, event loop) overlaps whatever the caller does
  // before it knows the launch (the sampler's prepare). Never throws: a spawn failure is
  // start()'s rejection. A helper that ends before start() is reported like one lost later.

  kj::Promise<PtySpawn> start(PtyLaunch launch);
  // Spawns rea-pty (unless spawnEarly() did), sends the launch and resolves once the target is
  // forked. Call once. Limits are checked first: a launch out of range rejects (FAILED) before any
  // spawn. Every failure arrives as a rejected promise, and whenExited() then resolves with
  // nullopt.

  void release(uint32_t eventIndex, bool timedOut, bool stop);
  // Lets a waiting event go (schema/pty.capnp PtyJob.release). Fire and forget: does nothing
  // before start() resolved or once the helper is lost; a failed call is a lost helper.

  kj::Promise<std::optional<PtyExit>> whenExited();
  // Resolves when the root has been reaped (its exit record), or with nullopt when the helper
  // was lost first (see record().fault). Call after start(); may be called more than once.
  // Output may still arrive after the exit (A10: draining goes on until EIO or finish()).

  kj::Promise<void> finish(kj::Duration deadline = 5 * kj::SECONDS);
  // Ends the job: the helper kills the root if it still runs, drains what the PTY master holds,
  // ends its stream and exits; the link then reaps it. If the helper does not complete within
  // `deadline` it is killed and recorded as a fault. Resolves (never rejects) once the helper
  // is reaped; afterwards record() is complete. Call once, after start() resolved or failed.

  const PtyRecord& record() const;

  PtyRecord takeRecord();
  // Moves the complete record out (after finish() resolved): a capture's output is then held
  // once, not once here and once in its result. record() is empty afterwards.

  class Impl;

 private:
  kj::Own<Impl> impl;
};

}  // namespace rea::supervisor
