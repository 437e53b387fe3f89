// The links' checks of helper messages (supervisor/links/*-batch.h) through the fuzz target's byte
// interface (tests/fuzz/helper-messages-driver.h): real, valid streams of every helper are
// accepted whole; malformed and out-of-range ones are refused with the rule they break, never
// with an exception. The valid streams are the fuzz target's seed corpus: the committed files in
// tests/fuzz/corpus/helper-messages/ must equal what this test builds (regenerate them with
// REA_WRITE_FUZZ_SEEDS=1 build/bin/unit-supervisor --gtest_filter='HelperMessages*').
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "tests/fuzz/helper-messages-driver.h"

namespace rea::fuzz {
namespace {

const std::string CORPUS = REA_SOURCE_DIR "/tests/fuzz/corpus/helper-messages/";

template <typename Params, typename Fill>
Call call(bool done, Fill&& fill) {
  capnp::MallocMessageBuilder message;
  fill(message.initRoot<Params>());
  return Call{done, capnp::messageToFlatArray(message)};
}

kj::ArrayPtr<const kj::byte> bytes(const char* text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text), strlen(text));
}

// ---- One valid stream per helper, as the real helpers send them ----------------------------

kj::Array<kj::byte> ptySession() {
  kj::Vector<Call> calls;
  calls.add(call<schema::PtySink::PushParams>(false, [](auto params) {
    auto events = params.initEvents(4);
    events[0].setAtNs(T0_NS + 10);
    events[0].setOutput(bytes("hello \xc3\xa9\r\n"));
    events[1].setAtNs(T0_NS + 10);
    auto frame = events[1].initRendered();
    frame.setColumns(10);
    frame.setRows(2);
    frame.setCursorY(1);
    auto lines = frame.initLines(2);
    lines.set(0, bytes("hello \xc3\xa9   "));
    lines.set(1, bytes("          "));
    frame.setSerializedState(bytes("{}"));
    events[2].setAtNs(T0_NS + 20);
    auto reply = events[2].initReplied();
    reply.setQuery("DA");
    reply.setReply(bytes("\x1b[?1;2c"));
    events[3].setAtNs(T0_NS + 30);
    events[3].initDispatched().setEventIndex(0);
  }));
  calls.add(call<schema::PtySink::PushParams>(false, [](auto params) {
    auto events = params.initEvents(3);
    events[0].setAtNs(T0_NS + 40);
    events[0].initExited().setCode(0);
    for (uint32_t i : {1u, 2u}) {
      events[i].setAtNs(T0_NS + 40);
      auto dispatch = events[i].initDispatched();
      dispatch.setEventIndex(i);
      dispatch.setOutcome(schema::Dispatch::Outcome::TARGET_EXITED);
    }
  }));
  calls.add(
      call<schema::PtySink::DoneParams>(true, [](auto params) { params.setRenderedFrames(1); }));
  return encodeInput(Link::PTY, calls);
}

kj::Array<kj::byte> ptyTruncated() {
  // A watchdog kill after output the helper had to drop (B §6.5: the stream ends truncated).
  kj::Vector<Call> calls;
  calls.add(call<schema::PtySink::PushParams>(false, [](auto params) {
    auto events = params.initEvents(2);
    events[0].setAtNs(T0_NS + 1);
    events[0].setOutput(bytes("\xef\xbf\xbd\x1b[31mred"));
    events[1].setAtNs(T0_NS + 2);
    auto exited = events[1].initExited();
    exited.setSignal(9);
    exited.setReason(schema::Exit::Reason::TIMEOUT);
  }));
  calls.add(call<schema::PtySink::DoneParams>(true, [](auto params) {
    auto summary = params.initSummary();
    summary.setTruncated(true);
    summary.setDroppedCount(3);
  }));
  return encodeInput(Link::PTY, calls);
}

kj::Array<kj::byte> samplerSession() {
  kj::Vector<Call> calls;
  calls.add(call<schema::SamplerSink::PushParams>(false, [](auto params) {
    auto samples = params.initSamples(3);
    const char* commands[] = {"sh -c sleep 1 & wait", "sleep 1", ""};
    for (uint32_t i = 0; i < 3; ++i) {
      samples[i].setAtNs(T0_NS + 100 * i);
      samples[i].setPid(int32_t(100 + i));
      samples[i].setParentPid(i == 0 ? 1 : 100);
      samples[i].setProcessGroupId(i == 2 ? -1 : 100);
      samples[i].setSessionId(i == 2 ? -1 : 100);
      samples[i].setCommand(bytes(commands[i]));
    }
  }));
  calls.add(
      call<schema::SamplerSink::DoneParams>(true, [](auto params) { params.setRecordedCount(3); }));
  return encodeInput(Link::SAMPLER, calls);
}

kj::Array<kj::byte> shimSession() {
  kj::Vector<Call> calls;
  calls.add(call<schema::ShimSink::PushParams>(false, [](auto params) {
    auto events = params.initEvents(4);
    for (uint32_t i = 0; i < 4; ++i) {
      events[i].setSequence(i);
      events[i].setAtNs(T0_NS + i);
      events[i].setWorkingDirectory("/tmp/work");
      bool curl = i == 3;
      events[i].setCommand(curl ? "curl" : "git");
      auto arguments = events[i].initArguments(2);
      arguments.set(0, curl ? "-s" : "status");
      arguments.set(1, curl ? "http://y" : "--short");
      events[i].setRouteIndex(curl ? -1 : 0);
      events[i].setOutcome(curl     ? schema::ShimInvocation::Outcome::UNMATCHED
                           : i == 2 ? schema::ShimInvocation::Outcome::EXHAUSTED
                                    : schema::ShimInvocation::Outcome::MATCHED);
    }
  }));
  calls.add(call<schema::ShimSink::DoneParams>(true, [](auto params) { params.initSummary(); }));
  return encodeInput(Link::SHIM, calls);
}

kj::Array<kj::byte> replaySession() {
  using E = schema::ProtocolEvent;
  kj::Vector<Call> calls;
  calls.add(call<schema::ReplaySink::PushParams>(false, [](auto params) {
    auto events = params.initEvents(4);
    for (uint32_t i = 0; i < 4; ++i) {
      events[i].setSequence(i);
      events[i].setAtNs(T0_NS + i);
    }
    events[0].getMethod().setValue("GET");
    events[0].setPath("/status");
    events[0].setData(bytes(""));
    events[1].getMethod().setValue("GET");
    events[1].setPath("/status");
    events[1].setDirection(E::Direction::RESPONSE);
    events[1].setData(bytes("{\"ok\":true}"));
    for (uint32_t i : {2u, 3u}) {
      events[i].setProtocol(E::Protocol::WEBSOCKET);
      events[i].getMethod().setNone();
      events[i].setPath("/ws");
      events[i].setDirection(i == 2 ? E::Direction::RECEIVED : E::Direction::SENT);
      events[i].setData(bytes(i == 2 ? "ping" : "pong"));
    }
  }));
  calls.add(call<schema::ReplaySink::DoneParams>(true, [](auto params) {
    auto summary = params.initSummary();
    summary.setDiagnosticCount(1);
    auto diagnostic = summary.initDiagnostics(1)[0];
    diagnostic.setAtNs(T0_NS + 5);
    diagnostic.setKind("bad_request");
    diagnostic.setDetail("A request line could not be parsed.");
  }));
  return encodeInput(Link::REPLAY, calls);
}

kj::Array<kj::byte> fswatchSnapshots() {
  kj::Vector<Call> calls;
  calls.add(call<schema::SnapshotResult>(false, [](auto result) {
    auto entries = result.initSnapshot().initEntries(6);
    struct Row {
      const char* path;
      schema::EntryType type;
      uint32_t mode;
      const char* sha;
      const char* target;
    } rows[] = {
        {"root_0:.", schema::EntryType::DIRECTORY, S_IFDIR | 0755, "", ""},
        {"root_0:a.txt", schema::EntryType::FILE, S_IFREG | 0644,
         "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", ""},
        {"root_0:d", schema::EntryType::DIRECTORY, S_IFDIR | 0700, "", ""},
        {"root_0:d/link", schema::EntryType::SYMLINK, S_IFLNK | 0777, "", "a.txt"},
        {"root_0:fifo", schema::EntryType::OTHER, S_IFIFO | 0600, "", ""},
        {"root_1:.", schema::EntryType::DIRECTORY, S_IFDIR | 0755, "", ""},
    };
    for (size_t i = 0; i < 6; ++i) {
      entries[i].setPath(bytes(rows[i].path));
      entries[i].setType(rows[i].type);
      entries[i].setMode(rows[i].mode);
      entries[i].setSize(rows[i].type == schema::EntryType::FILE ? 5 : 0);
      entries[i].setSha256(rows[i].sha);
      entries[i].setSymlinkTarget(bytes(rows[i].target));
    }
  }));
  calls.add(call<schema::SnapshotResult>(false, [](auto result) {
    auto failure = result.initFailure();
    failure.setPath(bytes("/tmp/root/d"));
    failure.setEntry(bytes("root_0:d"));
    failure.setOperation("readdir");
    failure.setError(13);
  }));
  return encodeInput(Link::FSWATCH, calls);
}

struct Seed {
  const char* name;
  kj::Array<kj::byte> (*make)();
  size_t calls;
};
const Seed SEEDS[] = {
    {"pty-session", ptySession, 3},         {"pty-truncated", ptyTruncated, 2},
    {"sampler-session", samplerSession, 2}, {"shim-session", shimSession, 2},
    {"replay-session", replaySession, 2},   {"fswatch-snapshots", fswatchSnapshots, 2},
};

TEST(HelperMessages, RealStreamsAreAcceptedWhole) {
  for (auto& seed : SEEDS) {
    SCOPED_TRACE(seed.name);
    auto input = seed.make();
    DriveResult result = drive(input);
    EXPECT_EQ(result.broken, "");
    EXPECT_FALSE(result.framingError);
    EXPECT_EQ(result.accepted, seed.calls);
  }
}

TEST(HelperMessages, SeedCorpusIsWhatTheseStreamsEncode) {
  bool write = getenv("REA_WRITE_FUZZ_SEEDS") != nullptr;
  for (auto& seed : SEEDS) {
    SCOPED_TRACE(seed.name);
    auto input = seed.make();
    std::string path = CORPUS + seed.name + ".bin";
    if (write) {
      std::ofstream(path, std::ios::binary)
          .write(reinterpret_cast<const char*>(input.begin()), std::streamsize(input.size()));
    }
    std::ifstream in(path, std::ios::binary);
    std::string committed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(committed, std::string(input.asChars().begin(), input.size()))
        << "regenerate with REA_WRITE_FUZZ_SEEDS=1";
  }
}

TEST(HelperMessages, OutOfRangeValuesBreakNamedRules) {
  auto expectBroken = [](Link link, Call c, const char* rule) {
    SCOPED_TRACE(rule);
    Call calls[] = {kj::mv(c)};
    DriveResult result = drive(encodeInput(link, calls));
    EXPECT_EQ(result.accepted, 0u);
    EXPECT_EQ(result.broken, rule);
  };
  expectBroken(Link::PTY,
               call<schema::PtySink::PushParams>(false,
                                                 [](auto params) {
                                                   auto e = params.initEvents(1)[0];
                                                   e.setAtNs(T0_NS - 1);
                                                   e.setOutput(bytes("x"));
                                                 }),
               "timestamps go back in time");
  expectBroken(Link::PTY,
               call<schema::PtySink::PushParams>(false,
                                                 [](auto params) {
                                                   auto e = params.initEvents(1)[0];
                                                   e.setAtNs(NOW_NS + 1);
                                                   e.setOutput(bytes("x"));
                                                 }),
               "a timestamp in the future");
  expectBroken(Link::PTY,
               call<schema::PtySink::PushParams>(false,
                                                 [](auto params) {
                                                   auto e = params.initEvents(1)[0];
                                                   e.setAtNs(T0_NS);
                                                   e.setOutput(bytes("\xc0\xaf"));
                                                 }),
               "output that is not UTF-8");
  expectBroken(
      Link::PTY,
      call<schema::PtySink::PushParams>(false,
                                        [](auto params) {
                                          auto e = params.initEvents(1)[0];
                                          e.setAtNs(T0_NS);
                                          e.setOutput(kj::heapArray<kj::byte>(4097).asPtr());
                                        }),
      "more output bytes than the limit");
  expectBroken(Link::PTY,
               call<schema::PtySink::PushParams>(false,
                                                 [](auto params) {
                                                   auto e = params.initEvents(1)[0];
                                                   e.setAtNs(T0_NS);
                                                   e.initDispatched().setEventIndex(3);
                                                 }),
               "an unknown event index");
  expectBroken(
      Link::SAMPLER,
      call<schema::SamplerSink::PushParams>(false,
                                            [](auto params) {
                                              params.initSamples(1)[0].setAtNs(T0_NS);  // pid 0
                                            }),
      "a process id out of range");
  expectBroken(Link::SAMPLER,
               call<schema::SamplerSink::PushParams>(false,
                                                     [](auto params) {
                                                       auto samples = params.initSamples(
                                                           SAMPLER_MAX_PROCESSES + 1);
                                                       for (auto s : samples)
                                                         s.setPid(7);
                                                     }),
               "more samples than the limit");
  expectBroken(Link::SHIM,
               call<schema::ShimSink::PushParams>(false,
                                                  [](auto params) {
                                                    auto e = params.initEvents(1)[0];
                                                    e.setSequence(1);
                                                    e.setAtNs(T0_NS);
                                                  }),
               "a sequence that is not contiguous");
  expectBroken(Link::SHIM,
               call<schema::ShimSink::PushParams>(
                   false,
                   [](auto params) {
                     auto e = params.initEvents(1)[0];
                     e.setAtNs(T0_NS);
                     e.setCommand("git");
                     e.initArguments(3 * 64 * 1024 / 3 + 1);  // each needs 3 bytes of a 64 KiB body
                   }),
               "more arguments than a request holds");
  expectBroken(Link::REPLAY,
               call<schema::ReplaySink::PushParams>(false,
                                                    [](auto params) {
                                                      auto e = params.initEvents(1)[0];
                                                      e.setAtNs(T0_NS);
                                                      e.getMethod().setValue("GET");
                                                      e.setPath("/status");
                                                      e.setData(bytes("secret body"));
                                                    }),
               "request data that is not a placeholder");
  expectBroken(Link::FSWATCH,
               call<schema::SnapshotResult>(false,
                                            [](auto result) {
                                              auto entry = result.initSnapshot().initEntries(1)[0];
                                              entry.setPath(bytes("root_2:."));
                                              entry.setMode(S_IFDIR);
                                              entry.setType(schema::EntryType::DIRECTORY);
                                            }),
               "an invalid snapshot (an entry outside the roots)");
}

TEST(HelperMessages, MalformedMessagesAreRefusedNotThrown) {
  // Byte layout of samplerSession(): word 0 the link, word 1 the call head, word 2 the segment
  // table, word 3 the root pointer (what the RPC layer's getParams() follows), word 4 the
  // params' `samples` list pointer. Pointing either far past the segment makes Cap'n Proto
  // throw when it is followed, inside the check: a broken rule, not an exception.
  for (size_t pointer : {24u, 32u}) {
    SCOPED_TRACE(pointer);
    auto input = kj::heapArray<kj::byte>(samplerSession().asPtr());
    input[pointer + 2] = 0x7f;  // offset bits 2-31: about 2^21 words away
    input[pointer + 3] = 0x1f;
    DriveResult result = drive(input);
    EXPECT_FALSE(result.framingError);
    EXPECT_EQ(result.accepted, 0u);
    EXPECT_EQ(result.broken.rfind("an unreadable message (", 0), 0u) << result.broken;
  }
}

}  // namespace
}  // namespace rea::fuzz
