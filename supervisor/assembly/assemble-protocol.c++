#include "supervisor/assembly/assemble-protocol.h"

#include <algorithm>

#include "evidence/bucket.h"

namespace rea::supervisor {

using namespace rea::evidence;

namespace {

std::string diagnosticsSentence(const ReplayRecord& record) {
  // Counts per kind among the kept notes, in the order they first happened.
  std::vector<std::pair<std::string, uint64_t>> kinds;
  for (const auto& note : record.diagnostics) {
    auto it = std::find_if(kinds.begin(), kinds.end(),
                           [&](const auto& k) { return k.first == note.kind; });
    if (it == kinds.end()) {
      kinds.push_back({note.kind, 1});
    } else {
      ++it->second;
    }
  }
  std::string list;
  for (const auto& [kind, count] : kinds) {
    list += (list.empty() ? "" : ", ") + kind + " x" + std::to_string(count);
  }
  return "The loopback replay server refused " + std::to_string(record.diagnosticCount) +
         " malformed, oversized, slow or excess connection attempt(s) from the target (" + list +
         (record.diagnosticCount > record.diagnostics.size() ? ", ..." : "") +
         "), which protocol_events cannot express.";
}

}  // namespace

ProtocolAssembly assembleProtocol(const ReplayRecord& record, const NormaliseContext& base,
                                  int64_t timeBucketMs) {
  ProtocolAssembly out;
  NormaliseContext context = base;  // B §4.6.1: placeholder temp root, no pids
  context.temporaryRoot = std::string(NO_TEMPORARY_ROOT);
  context.pids.clear();
  Normaliser text(context);

  uint64_t origin = record.originNs.value_or(0);
  out.events.reserve(record.events.size());
  for (const auto& raw : record.events) {
    evidence::ProtocolEvent event;
    event.sequence = static_cast<int64_t>(out.events.size());
    int64_t rawMs = raw.atNs <= origin ? 0 : static_cast<int64_t>((raw.atNs - origin) / 1000000);
    event.atMs = bucketMs(rawMs, timeBucketMs);
    event.protocol = raw.protocol;
    event.direction = raw.direction;
    event.method = raw.method;
    event.path = raw.path;
    event.data = text(raw.data);
    event.outcome = raw.outcome;
    out.events.push_back(std::move(event));
  }

  out.truncated = record.truncated();
  if (record.diagnosticCount > 0) {
    std::string sentence = diagnosticsSentence(record);
    out.limitations.push_back(sentence);
    out.residualUnknowns.push_back({ResidualScope::PROTOCOL, sentence});
  }
  return out;
}

}  // namespace rea::supervisor
