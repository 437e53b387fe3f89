#pragma once
// The typed shim and replay plans (schema/shim-plan.capnp, schema/replay-plan.capnp) built from
// the parsed scenario: the one conversion from evidence/ types to what a helper reads. The
// supervisor's links call it when they start a helper; the helpers' standalone modes call it on
// the scenario parts they read from their request file, so both run the same plan code.
//
// The scenario is validated (evidence/scenario.h), so the values fit the schema's types.
//
// Errors: none (the builders do not throw).

#include <vector>

#include "evidence/scenario.h"
#include "schema/replay-plan.capnp.h"
#include "schema/shim-plan.capnp.h"

namespace rea::helper {

void buildShimPlan(const std::vector<evidence::CommandShim>& shims, schema::ShimPlan::Builder plan);
// The scenario's `command_shims`, in declaration order, every default applied.

void buildReplayPlan(const evidence::Replay& replay, schema::ReplayPlan::Builder plan);
// The scenario's `replay`; an absent `request_body` becomes `requestBody.any`.

}  // namespace rea::helper
