#pragma once
// The sampler helper's answers to prepare, settle and cleanup, checked (SPEC A13: a helper is not
// trusted). Not pure: a claimed capture cgroup is checked against this machine's cgroup2 mount
// (owned-cleanup.h), so these stay out of the fuzzed stream checks of sampler-batch.h.
//
// Errors: none thrown; each returns the broken rule (broken-rule.h), null when the answer is fine.

#include <kj/common.h>
#include <string>

#include "schema/sampler.capnp.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/sampler-link.h"

namespace rea::supervisor {

kj::Maybe<BrokenRule> preparedFrom(schema::Sampler::PrepareResults::Reader in,
                                   const SamplerPlan& plan, SamplerPrepared& out);
// The answer to prepare: a known mode, exact only with the capture's own cgroup and when
// sampling was not forced.

kj::Maybe<BrokenRule> settlementFrom(schema::Settlement::Reader in, SamplerSettlement& out);
// The answer to settle: a known state, a time that is not negative.

kj::Maybe<BrokenRule> cleanupFrom(schema::Cleanup::Reader in, SamplerCleanup& out);
// The cleanup report: its problem set exactly when it was incomplete (then followed by the
// processes left running, as one line of printable text); the escapees it names.

}  // namespace rea::supervisor
