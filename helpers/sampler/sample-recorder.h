#pragma once
// The raw process samples of a capture (SPEC B §4.3 ProcessSample before renumbering, §6.8) and
// the rule deciding which ones are recorded: a row is skipped when its (ppid, command, pgid, sid)
// equals the last recorded tuple for that pid; once `limits.processes` rows are recorded every
// further new row sets `partial` instead. A row with an empty command (an exited or exiting
// process, B's "live -> exited") is never recorded (A15). Both observation modes feed rows through
// this rule. Owns: the per-pid last recorded tuples.
//
// Errors: none; a full recorder is a result (`isPartial()`).

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include <kj/common.h>

namespace rea::helper {

struct ProcessRecord {
  uint64_t atNs;              // CLOCK_MONOTONIC: the kernel event's time, or the pass start
  pid_t pid;                  // raw ids; the supervisor renumbers (B §4.6.4)
  pid_t ppid;                 // >= 0
  std::optional<pid_t> pgid;  // null when it could not be observed
  std::optional<pid_t> sid;
  std::string command;  // cmdline, NULs as spaces, trimmed; "" once the process has exited
};

bool operator==(const ProcessRecord& a, const ProcessRecord& b);

class ProcessSink {
 public:
  virtual void record(const ProcessRecord& record) = 0;
  // Called synchronously for each recorded row, in recording order (non-decreasing atNs within
  // one mode). Must not call back into the observer.
};

class SampleRecorder {
 public:
  SampleRecorder(uint32_t maxProcesses, ProcessSink& sink)
      : maxProcesses(maxProcesses), sink(sink) {}
  // `maxProcesses` is the scenario's limits.processes (range: evidence/limits.h).

  bool offer(const ProcessRecord& record);
  // Records the row (true), or skips it as unchanged, refused by the filter or over the limit
  // (false).
  bool offerUnfiltered(const ProcessRecord& record);
  // offer() without the filter.

  void setFilter(std::function<bool(const ProcessRecord&)> accept) { filter = kj::mv(accept); }
  // Rows offer() passes on only when `accept` says so (sampled mode with kernel-side exec
  // observation: a pass must not re-record the image an exec already replaced).

  void markPartial() { partial = true; }
  // Observations were lost (a sampling error, a proc-connector overrun).

  void noteUnreadCommand() { ++unreadCommands; }
  // An exec was observed but what it ran could not be read (the program had already been
  // reaped, or had exec'd again): its row is missing. Not `partial`: like a brief descendant
  // that sampling misses, it says what is unknown without making the capture truncated.

  bool isPartial() const { return partial; }
  uint32_t recordedCount() const { return recorded; }
  uint32_t unreadCommandCount() const { return unreadCommands; }

 private:
  struct Tuple {
    pid_t ppid;
    std::string command;
    std::optional<pid_t> pgid;
    std::optional<pid_t> sid;
  };
  uint32_t maxProcesses;
  ProcessSink& sink;
  std::function<bool(const ProcessRecord&)> filter;
  std::unordered_map<pid_t, Tuple> last;
  uint32_t recorded = 0;
  uint64_t lastAtNs = 0;
  uint32_t unreadCommands = 0;
  bool partial = false;
};

}  // namespace rea::helper
