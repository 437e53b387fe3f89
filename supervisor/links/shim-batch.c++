#include "supervisor/links/shim-batch.h"

#include <optional>

#include "evidence/utf.h"
#include "supervisor/links/helper-message.h"

namespace rea::supervisor {

namespace {

// A recorded call came from one request body of at most 64 KiB; decoding may turn each
// ill-formed byte into U+FFFD (3 bytes), so its strings together stay below 3 × 64 KiB.
const size_t MAX_CALL_TEXT_BYTES = 3 * 64 * 1024;

}  // namespace

ShimStreamCheck::ShimStreamCheck(const ShimLaunch& launch) : launch(launch), lastAtNs(launch.t0Ns) {
  for (const auto& shim : launch.shims)
    matchedCounts.emplace_back(shim.routes.size(), 0);
}

kj::Maybe<BrokenRule> ShimStreamCheck::check(schema::ShimInvocation::Reader event, uint64_t nowNs,
                                             size_t received, ShimCall& call) {
  // Fills `call` and counts a match, or returns what is wrong with `event`.
  if (event.getSequence() != received) return BrokenRule{"a sequence that is not contiguous"};
  if (received >= launch.protocolEventLimit)
    return BrokenRule{"more events than the protocol-event limit"};
  call.sequence = event.getSequence();
  call.atNs = event.getAtNs();
  if (call.atNs < lastAtNs) return BrokenRule{"timestamps go back in time"};
  if (call.atNs > nowNs) return BrokenRule{"a timestamp in the future"};

  size_t textBytes = 0;
  auto take = [&textBytes](capnp::Text::Reader text, std::string& out) {
    out.assign(text.begin(), text.size());
    textBytes += out.size();
    return evidence::isValidUtf8(out);
  };
  if (!take(event.getCommand(), call.command)) return BrokenRule{"a command that is not UTF-8"};
  if (!take(event.getWorkingDirectory(), call.workingDirectory)) {
    return BrokenRule{"a working directory that is not UTF-8"};
  }
  auto arguments = event.getArguments();
  // Each argument takes at least 3 bytes of the request's JSON (`"",`): a longer list is a lie,
  // refused before it costs memory.
  if (arguments.size() > MAX_CALL_TEXT_BYTES / 3)
    return BrokenRule{"more arguments than a request holds"};
  for (auto argument : arguments) {
    if (textBytes > MAX_CALL_TEXT_BYTES) break;
    call.arguments.emplace_back();
    if (!take(argument, call.arguments.back())) return BrokenRule{"an argument that is not UTF-8"};
  }
  if (textBytes > MAX_CALL_TEXT_BYTES) return BrokenRule{"a call larger than a 64 KiB request"};

  // The ledger's matching, repeated (B §7.3): the first shim of that name, then its first route
  // with exactly these arguments.
  std::optional<size_t> shimIndex, routeIndex;
  for (size_t s = 0; s < launch.shims.size() && !shimIndex; ++s) {
    if (launch.shims[s].name != call.command) continue;
    shimIndex = s;
    const auto& routes = launch.shims[s].routes;
    for (size_t r = 0; r < routes.size(); ++r) {
      if (routes[r].arguments == call.arguments) {
        routeIndex = r;
        break;
      }
    }
  }
  int32_t claimedRoute = event.getRouteIndex();
  switch (event.getOutcome()) {
    case schema::ShimInvocation::Outcome::UNMATCHED:
      if (claimedRoute != -1) return BrokenRule{"an unmatched call with a route"};
      if (routeIndex) return BrokenRule{"an unmatched call that a route matches"};
      call.outcome = ShimCall::Outcome::UNMATCHED;
      return nullptr;
    case schema::ShimInvocation::Outcome::MATCHED:
    case schema::ShimInvocation::Outcome::EXHAUSTED: {
      if (!routeIndex || claimedRoute < 0 || size_t(claimedRoute) != *routeIndex) {
        return BrokenRule{"a route that is not the one the arguments match"};
      }
      call.routeIndex = uint32_t(*routeIndex);
      uint32_t& count = matchedCounts[*shimIndex][*routeIndex];
      int maxCalls = launch.shims[*shimIndex].routes[*routeIndex].maxCalls;
      if (event.getOutcome() == schema::ShimInvocation::Outcome::MATCHED) {
        if (int(count) >= maxCalls) return BrokenRule{"more matched calls than max_calls"};
        ++count;
        call.outcome = ShimCall::Outcome::MATCHED;
      } else {
        if (int(count) < maxCalls) return BrokenRule{"an exhausted route with calls left"};
        call.outcome = ShimCall::Outcome::EXHAUSTED;
      }
      return nullptr;
    }
  }
  return BrokenRule{"an unknown outcome"};
}

kj::Maybe<BrokenRule> ShimStreamCheck::push(
    kj::FunctionParam<schema::ShimSink::PushParams::Reader()> readParams, uint64_t nowNs,
    ShimRecord& record) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    if (record.streamDone) return BrokenRule{"events after done"};
    auto events = params.getEvents();
    if (events.size() > MAX_BATCH_EVENTS) return BrokenRule{"a batch of more than 4096 events"};
    for (auto event : events) {
      ShimCall call;
      KJ_IF_MAYBE (broken, check(event, nowNs, record.calls.size(), call)) {
        return kj::mv(*broken);
      }
      lastAtNs = call.atNs;
      record.calls.push_back(kj::mv(call));
    }
    return nullptr;
  });
}

kj::Maybe<BrokenRule> ShimStreamCheck::done(
    kj::FunctionParam<schema::ShimSink::DoneParams::Reader()> readParams, ShimRecord& record) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    if (record.streamDone) return BrokenRule{"done twice"};
    auto summary = params.getSummary();
    if (summary.getTruncated() != (summary.getDroppedCount() > 0)) {
      return BrokenRule{"a summary whose truncated flag contradicts its count"};
    }
    if (summary.getTruncated() && record.calls.size() != launch.protocolEventLimit) {
      return BrokenRule{"truncated before the protocol-event limit"};
    }
    record.streamDone = true;
    record.truncated = summary.getTruncated();
    record.droppedCalls = summary.getDroppedCount();
    return nullptr;
  });
}

}  // namespace rea::supervisor
