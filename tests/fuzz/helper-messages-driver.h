#pragma once
// The helper-to-supervisor message handling as one byte-level interface, shared by the libFuzzer
// target (helper-messages-fuzz.c++) and the unit test that builds its seed corpus
// (tests/unit/supervisor/helper-messages-test.c++).
//
// Input layout (a helper is not trusted, so every byte is the fuzzer's):
//   word 0      byte 0 picks the link (Link, modulo 5); bytes 1-7 unused
//   then calls  each call is one word (byte 0 even: `push`, odd: `done`; fswatch: every call is
//               one snapshot answer) followed by one Cap'n Proto message in the flat-array format
//               (segment table, segments), read with conservative ReaderOptions
// The bytes are copied into a word-aligned buffer first, so unaligned or short input is fine. A
// framing error (short segment table, segments past the end) ends the input, as a broken
// connection ends a helper (the RPC layer reports it lost). A call whose check reports a broken
// rule ends the input too: the link stops that helper.
//
// drive() checks properties of what was accepted (limits held, times ordered, strings UTF-8...)
// and aborts on a violation; a check that throws is also a finding (checks never throw).

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/array.h>
#include <kj/debug.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "evidence/utf.h"
#include "supervisor/links/fswatch-batch.h"
#include "supervisor/links/pty-batch.h"
#include "supervisor/links/replay-batch.h"
#include "supervisor/links/sampler-batch.h"
#include "supervisor/links/shim-batch.h"

namespace rea::fuzz {

enum class Link : uint8_t { PTY, SAMPLER, SHIM, REPLAY, FSWATCH };
const uint8_t LINK_COUNT = 5;

// Every helper's timestamps must lie in [T0, NOW]: fixed, so that a run is reproducible.
const uint64_t T0_NS = 1000000000ull;
const uint64_t NOW_NS = 2000000000ull;

inline void property(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

// ---- The plans the links were started with (small limits, so fuzzing reaches them) --------

inline supervisor::PtyLaunch ptyLaunch() {
  supervisor::PtyLaunch launch;
  launch.t0Ns = T0_NS;
  launch.maxFrames = 64;
  launch.maxOutputBytes = 4096;
  launch.renderMaxFrames = 16;
  launch.renderMaxBytes = 64 * 1024;
  supervisor::PtyInteraction input;
  input.data = "y\r";
  supervisor::PtyInteraction resize;
  resize.type = supervisor::PtyInteraction::Type::RESIZE;
  resize.columns = 100;
  resize.rows = 30;
  supervisor::PtyInteraction signal;
  signal.type = supervisor::PtyInteraction::Type::SIGNAL;
  signal.signal = 15;
  launch.events = {input, resize, signal};
  return launch;
}

const uint32_t SAMPLER_MAX_PROCESSES = 32;

inline supervisor::ShimLaunch shimLaunch() {
  supervisor::ShimLaunch launch;
  evidence::Route status;
  status.arguments = {"status", "--short"};
  status.maxCalls = 2;
  evidence::Route none;
  evidence::CommandShim git{"git", {status, none}};
  evidence::Route fetch;
  fetch.arguments = {"-s", "http://x"};
  evidence::CommandShim curl{"curl", {fetch}};
  launch.shims = {git, curl};
  launch.protocolEventLimit = 16;
  launch.t0Ns = T0_NS;
  return launch;
}

inline supervisor::ReplayLaunch replayLaunch() {
  supervisor::ReplayLaunch launch;
  launch.plan.http.resize(2);
  launch.plan.http[0].method = "GET";
  launch.plan.http[0].path = "/status";
  launch.plan.http[1].method = "POST";
  launch.plan.http[1].path = "/items";
  launch.protocolEvents = 16;
  launch.protocolBodyBytes = 1024;
  return launch;
}

const size_t FSWATCH_ROOTS = 2;
inline supervisor::FswatchLimits fswatchLimits() {
  return {64, 4096, 4};
}

// ---- Input framing -------------------------------------------------------------------------

struct Call {
  bool done = false;
  kj::Array<capnp::word> message;  // messageToFlatArray() of the call's params
};

inline kj::Array<kj::byte> encodeInput(Link link, kj::ArrayPtr<const Call> calls) {
  // The inverse of drive()'s reading: how the seed corpus is written.
  std::vector<kj::byte> bytes(sizeof(capnp::word), 0);
  bytes[0] = kj::byte(link);
  for (auto& call : calls) {
    std::vector<kj::byte> head(sizeof(capnp::word), 0);
    head[0] = call.done ? 1 : 0;
    bytes.insert(bytes.end(), head.begin(), head.end());
    auto raw = call.message.asBytes();
    bytes.insert(bytes.end(), raw.begin(), raw.end());
  }
  return kj::heapArray<kj::byte>(bytes.data(), bytes.size());
}

struct DriveResult {
  size_t accepted = 0;  // calls the link's checks accepted
  std::string broken;   // the rule the first refused call broke ("" when none was refused): the
                        // text the tests compare
  bool framingError = false;
};

class Driver {
  // One link's stream checks and record, fed call by call.
 public:
  explicit Driver(Link link)
      : link(link),
        pty(ptyLaunchValue),
        sampler(SAMPLER_MAX_PROCESSES),
        shim(shimLaunchValue),
        replay(replayLaunchValue) {
    replay.origin(T0_NS);
  }

  kj::Maybe<supervisor::BrokenRule> call(bool done, capnp::AnyPointer::Reader root) {
    switch (link) {
      case Link::PTY:
        return done ? pty.done([&]() { return root.getAs<schema::PtySink::DoneParams>(); },
                               ptyRecord)
                    : pty.push([&]() { return root.getAs<schema::PtySink::PushParams>(); }, NOW_NS,
                               ptyRecord, nullptr);
      case Link::SAMPLER:
        return done ? sampler.done([&]() { return root.getAs<schema::SamplerSink::DoneParams>(); },
                                   samplerRecord)
                    : sampler.push([&]() { return root.getAs<schema::SamplerSink::PushParams>(); },
                                   NOW_NS, samplerRecord);
      case Link::SHIM:
        return done ? shim.done([&]() { return root.getAs<schema::ShimSink::DoneParams>(); },
                                shimRecord)
                    : shim.push([&]() { return root.getAs<schema::ShimSink::PushParams>(); },
                                NOW_NS, shimRecord);
      case Link::REPLAY:
        return done ? replay.done([&]() { return root.getAs<schema::ReplaySink::DoneParams>(); },
                                  replayRecord)
                    : replay.push([&]() { return root.getAs<schema::ReplaySink::PushParams>(); },
                                  NOW_NS, replayRecord);
      case Link::FSWATCH: {
        supervisor::FswatchOutcome outcome;
        auto broken =
            supervisor::checkSnapshotResult([&]() { return root.getAs<schema::SnapshotResult>(); },
                                            FSWATCH_ROOTS, fswatchLimitsValue, outcome);
        if (broken == nullptr) checkSnapshot(outcome);
        return broken;
      }
    }
    return supervisor::BrokenRule{"no such link"};
  }

  void checkRecords() const {
    // What a link accepted obeys the plan, whatever the helper sent.
    uint64_t bytes = 0, last = T0_NS;
    for (auto& chunk : ptyRecord.output) {
      property(!chunk.data.empty() && evidence::isValidUtf8(chunk.data), "pty chunk");
      property(chunk.atNs >= last && chunk.atNs <= NOW_NS, "pty chunk time");
      last = chunk.atNs;
      bytes += chunk.data.size();
    }
    property(ptyRecord.output.size() <= ptyLaunchValue.maxFrames, "pty frame limit");
    property(bytes <= ptyLaunchValue.maxOutputBytes, "pty byte limit");
    property(ptyRecord.interactions.size() <= ptyLaunchValue.events.size(), "pty dispatches");
    property(ptyRecord.rendered.size() <= ptyLaunchValue.renderMaxFrames, "rendered limit");
    // The link holds all but the newest frame packed (rendered-pack.h): checked as unpacked.
    auto rendered = ptyRecord.rendered;
    supervisor::unpackRenderedFrames(rendered);
    for (auto& frame : rendered) {
      property(frame.lines.size() == size_t(frame.rows) && frame.cursorX <= frame.columns &&
                   frame.cursorY < frame.rows,
               "rendered frame shape");
    }
    property(!ptyRecord.streamDone || ptyRecord.exit, "pty done without exit");
    property(samplerRecord.samples.size() <= SAMPLER_MAX_PROCESSES, "sampler limit");
    for (auto& row : samplerRecord.samples) {
      property(row.pid >= 1 && row.parentPid >= 0 && row.atNs <= NOW_NS, "sampler row");
    }
    property(shimRecord.calls.size() <= shimLaunchValue.protocolEventLimit, "shim limit");
    for (size_t i = 0; i < shimRecord.calls.size(); ++i) {
      auto& c = shimRecord.calls[i];
      property(c.sequence == i && evidence::isValidUtf8(c.command), "shim call");
      property(c.routeIndex.has_value() == (c.outcome != supervisor::ShimCall::Outcome::UNMATCHED),
               "shim route");
    }
    property(replayRecord.events.size() <= replayLaunchValue.protocolEvents, "replay limit");
    for (size_t i = 0; i < replayRecord.events.size(); ++i) {
      auto& e = replayRecord.events[i];
      property(e.sequence == i && e.atNs >= T0_NS && evidence::isValidUtf8(e.data), "replay");
    }
  }

 private:
  Link link;
  const supervisor::PtyLaunch ptyLaunchValue = ptyLaunch();
  const supervisor::ShimLaunch shimLaunchValue = shimLaunch();
  const supervisor::ReplayLaunch replayLaunchValue = replayLaunch();
  const supervisor::FswatchLimits fswatchLimitsValue = fswatchLimits();
  supervisor::PtyStreamCheck pty;
  supervisor::SamplerStreamCheck sampler;
  supervisor::ShimStreamCheck shim;
  supervisor::ReplayStreamCheck replay;
  supervisor::PtyRecord ptyRecord;
  supervisor::SamplerRecord samplerRecord;
  supervisor::ShimRecord shimRecord;
  supervisor::ReplayRecord replayRecord;

  void checkSnapshot(const supervisor::FswatchOutcome& outcome) const {
    if (outcome.kind != supervisor::FswatchOutcome::Kind::SNAPSHOT) return;
    property(outcome.snapshot.entries.size() <= fswatchLimitsValue.files, "fswatch files");
    for (auto& entry : outcome.snapshot.entries) {
      property(entry.path.compare(0, 5, "root_") == 0 && entry.size >= 0, "fswatch entry");
    }
  }
};

inline DriveResult drive(kj::ArrayPtr<const kj::byte> input) {
  DriveResult result;
  size_t words = input.size() / sizeof(capnp::word);
  if (words == 0) return result;
  auto buffer = kj::heapArray<capnp::word>(words);  // word-aligned copy; a partial word is cut
  memcpy(buffer.begin(), input.begin(), words * sizeof(capnp::word));
  Driver driver(Link(input[0] % LINK_COUNT));
  capnp::ReaderOptions options;
  options.traversalLimitInWords = 1024 * 1024;  // 8 MiB: the links allow more, fuzzing is faster
  options.nestingLimit = 16;
  kj::ArrayPtr<const capnp::word> rest = buffer.slice(1, words);
  while (rest.size() > 1) {
    bool done = (reinterpret_cast<const kj::byte*>(rest.begin())[0] & 1) != 0;
    rest = rest.slice(1, rest.size());
    kj::Maybe<kj::Own<capnp::FlatArrayMessageReader>> reader;
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() {
                   reader = kj::heap<capnp::FlatArrayMessageReader>(rest, options);
                 })) {
      result.framingError = true;  // the RPC layer's reading would fail the same way
      break;
    }
    auto& message = *KJ_ASSERT_NONNULL(reader);
    rest = kj::arrayPtr(message.getEnd(), rest.end());
    // getRoot() validates the root pointer: in a link that is the RPC layer's getParams().
    kj::Maybe<capnp::AnyPointer::Reader> root;
    KJ_IF_MAYBE (e, kj::runCatchingExceptions(
                        [&]() { root = message.getRoot<capnp::AnyPointer>(); })) {
      result.framingError = true;
      break;
    }
    auto broken = driver.call(done, KJ_ASSERT_NONNULL(root));
    driver.checkRecords();
    KJ_IF_MAYBE (b, broken) {
      result.broken = kj::mv(b->rule);
      break;  // the link stops the helper here
    }
    ++result.accepted;
  }
  return result;
}

}  // namespace rea::fuzz
