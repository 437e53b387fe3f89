#pragma once
// What checking one message of an untrusted helper finds (SPEC A13): nothing, or the one rule the
// message breaks. Every check of a helper's message (helper-message.h and the links' *-batch.h,
// sampler-answers.h, pty-link-render.h) returns kj::Maybe<BrokenRule>, null when the message is
// fine; the link then stops the helper and reports it lost, naming the rule.

#include <string>

namespace rea::supervisor {

struct BrokenRule {
  std::string rule;
  // In words, as the object of "the <helper> helper sent ...": e.g. "a repeated path". Tests
  // and Evidence (helper-lost issues) match these texts.
};

}  // namespace rea::supervisor
