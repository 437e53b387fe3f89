#include "supervisor/assembly/assemble-shim.h"

#include <algorithm>

namespace rea::supervisor {

namespace {

evidence::ShimOutcome outcomeOf(ShimCall::Outcome outcome) {
  switch (outcome) {
    case ShimCall::Outcome::MATCHED:
      return evidence::ShimOutcome::MATCHED;
    case ShimCall::Outcome::UNMATCHED:
      return evidence::ShimOutcome::UNMATCHED;
    case ShimCall::Outcome::EXHAUSTED:
      return evidence::ShimOutcome::EXHAUSTED;
  }
  return evidence::ShimOutcome::UNMATCHED;
}

}  // namespace

std::vector<evidence::ShimEvent> assembleShimEvents(
    const ShimRecord& record, const std::function<int64_t(uint64_t atNs)>& bucketedMs,
    const evidence::NormaliseContext& context) {
  evidence::Normaliser normalise(context);
  std::vector<evidence::ShimEvent> events;
  events.reserve(record.calls.size());
  int64_t lastMs = 0;
  for (const ShimCall& call : record.calls) {
    evidence::ShimEvent event;
    event.sequence = static_cast<int64_t>(events.size());
    // The link guarantees non-decreasing times; the max keeps B §4.7 true regardless.
    lastMs = std::max(lastMs, bucketedMs(call.atNs));
    event.atMs = lastMs;
    event.command = call.command;
    if (call.routeIndex) event.routeIndex = static_cast<int64_t>(*call.routeIndex);
    for (const auto& argument : call.arguments)
      event.arguments.push_back(normalise(argument));
    event.workingDirectory = normalise(call.workingDirectory);
    event.outcome = outcomeOf(call.outcome);
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace rea::supervisor
