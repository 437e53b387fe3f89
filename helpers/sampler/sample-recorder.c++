#include "helpers/sampler/sample-recorder.h"

namespace rea::helper {

bool operator==(const ProcessRecord& a, const ProcessRecord& b) {
  return a.atNs == b.atNs && a.pid == b.pid && a.ppid == b.ppid && a.pgid == b.pgid &&
         a.sid == b.sid && a.command == b.command;
}

bool SampleRecorder::offer(const ProcessRecord& record) {
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
  sink.record(record);
  return true;
}

}  // namespace rea::helper
