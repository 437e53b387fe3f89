#include "helpers/sampler/sample-recorder.h"

namespace rea::helper {

bool operator==(const ProcessRecord& a, const ProcessRecord& b) {
  return a.atNs == b.atNs && a.pid == b.pid && a.ppid == b.ppid && a.pgid == b.pgid &&
         a.sid == b.sid && a.command == b.command;
}

bool SampleRecorder::offer(const ProcessRecord& record) {
  if (filter && !record.command.empty() && !filter(record)) return false;
  return offerUnfiltered(record);
}

bool SampleRecorder::offerUnfiltered(const ProcessRecord& record) {
  if (record.command.empty()) {
    // A15: a process that is exiting (or gone) is never recorded with an empty command. Its pid
    // may come back as someone else's, so what was recorded for it is forgotten.
    last.erase(record.pid);
    return false;
  }
  auto found = last.find(record.pid);
  if (found != last.end()) {
    const Tuple& tuple = found->second;
    if (tuple.ppid == record.ppid && tuple.command == record.command && tuple.pgid == record.pgid &&
        tuple.sid == record.sid) {
      return false;
    }
  }
  if (recorded >= maxProcesses) {
    partial = true;
    return false;
  }
  last[record.pid] = Tuple{record.ppid, record.command, record.pgid, record.sid};
  ++recorded;
  if (record.atNs < lastAtNs) {
    // A replay after a wrong guess of the root (process-observer.h) offers rows of events
    // older than rows already recorded: they are recorded now, at the latest recorded time.
    ProcessRecord late = record;
    late.atNs = lastAtNs;
    sink.record(late);
    return true;
  }
  lastAtNs = record.atNs;
  sink.record(record);
  return true;
}

}  // namespace rea::helper
