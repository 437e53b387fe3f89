#pragma once
// Reading an untrusted helper's message: Cap'n Proto reads lazily, so a malformed pointer, an
// out-of-bounds list or a message beyond the reader's traversal limit throws a kj exception at
// the moment a field is read, in the middle of a link's checks. The links' stream checks
// (pty-batch.h, sampler-batch.h, shim-batch.h, replay-batch.h, fswatch-batch.h) run their
// reading inside checkedRead() so such a message is one more broken rule (the helper is
// stopped and reported lost, A13) instead of an exception thrown back into the RPC system.
//
// Errors: none thrown; the broken rule is returned as a value (broken-rule.h), null when the
// message is fine.

#include <kj/common.h>
#include <kj/exception.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "supervisor/links/broken-rule.h"

namespace rea::supervisor {

constexpr size_t MAX_BATCH_EVENTS = 4096;
// The most events one batch of a helper's stream may carry (a longer batch breaks a rule).

constexpr uint64_t HELPER_MESSAGE_LIMIT_WORDS = 8 * 1024 * 1024;
// The reader's traversal limit for one message of a streaming helper: 64 MiB (a batch is about
// 64 KiB).

template <typename Func>
kj::Maybe<BrokenRule> checkedRead(Func&& check) {
  // Runs `check` (returning the broken rule, null when none); a kj exception becomes
  // "an unreadable message (<description>)" (the link wraps it: "sent a malformed message (…)").
  kj::Maybe<BrokenRule> broken;
  KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() { broken = check(); })) {
    return BrokenRule{std::string("an unreadable message (") + exception->getDescription().cStr() +
                      ")"};
  }
  return broken;
}

}  // namespace rea::supervisor
