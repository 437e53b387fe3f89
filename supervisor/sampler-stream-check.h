#pragma once
// What the sampler helper sends, checked (SPEC A13: a helper is not trusted): its answers to
// prepare and settle, and its stream of process samples ending in done(). Pure (no I/O, no
// clock: the caller passes "now"), so SamplerLink and a fuzz target over the helper-to-supervisor
// messages share it.
//
// Errors: none thrown; each function returns the broken rule as text, empty when the message is
// fine. After a broken rule the stream must be abandoned (SamplerLink stops the helper).

#include <cstdint>
#include <string>

#include "schema/sampler.capnp.h"
#include "supervisor/sampler-link.h"

namespace rea::supervisor {

std::string preparedFrom(schema::Sampler::PrepareResults::Reader in, const SamplerPlan& plan,
                         SamplerPrepared& out);
// The answer to prepare: a known mode, exact only with the capture's own cgroup and when
// sampling was not forced.

std::string settlementFrom(schema::Settlement::Reader in, SamplerSettlement& out);
// The answer to settle: a known state, a time that is not negative.

class SampleStreamCheck {
 public:
  explicit SampleStreamCheck(uint32_t maxProcesses) : maxProcesses(maxProcesses) {}

  std::string batch(size_t size, const SamplerRecord& record) const;
  // A batch of `size` samples may come now (not after done, not larger than the helper's).

  std::string sample(schema::ProcessSample::Reader in, uint64_t nowNs, SamplerRecord& record);
  // Appends one sample to record.samples, or returns the rule it breaks: time going back or
  // into the future, more samples than the limit, a process id out of range, an oversized
  // command.

  std::string done(bool partial, uint32_t recordedCount, SamplerRecord& record) const;
  // Ends the stream, or returns the rule the summary breaks (twice, a wrong count).

 private:
  uint32_t maxProcesses;
  uint64_t lastAtNs = 0;
};

}  // namespace rea::supervisor
