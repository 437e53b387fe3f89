#include "supervisor/assembly/redact-paths.h"

#include <algorithm>

#include "evidence/utf.h"

namespace rea::supervisor {
namespace {

using namespace rea::evidence;

void redactState(FileState& state, const Normaliser& redact) {
  state.path = redact(state.path);
  if (state.symlinkTarget) state.symlinkTarget = redact(*state.symlinkTarget);
}

template <typename T>
void sortByPath(std::vector<T>& items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const T& a, const T& b) { return compareUtf16(a.path, b.path) < 0; });
}

}  // namespace

NormaliseContext secretsOnly(const NormaliseContext& base) {
  NormaliseContext context;
  context.secrets = base.secrets;
  context.sensitiveInputs = base.sensitiveInputs;
  context.normalisePaths = false;
  context.normalisePids = false;
  context.normalisePorts = false;
  return context;
}

void redactFileStates(std::vector<FileState>& files, const Normaliser& redact) {
  for (auto& state : files)
    redactState(state, redact);
  sortByPath(files);
}

void redactFileEffects(std::vector<FileEffect>& effects, const Normaliser& redact) {
  for (auto& effect : effects) {
    effect.path = redact(effect.path);
    if (effect.before) redactState(*effect.before, redact);
    if (effect.after) redactState(*effect.after, redact);
  }
  sortByPath(effects);
}

void redactCheckpoints(std::vector<Checkpoint>& checkpoints, const Normaliser& redact) {
  for (auto& checkpoint : checkpoints) {
    checkpoint.name = redact(checkpoint.name);
    redactFileStates(checkpoint.files, redact);
    redactFileEffects(checkpoint.effects, redact);
  }
}

void redactProtocolEvents(std::vector<ProtocolEvent>& events, const Normaliser& redact) {
  for (auto& event : events) {
    if (event.method) event.method = redact(*event.method);
    if (event.path) event.path = redact(*event.path);
  }
}

}  // namespace rea::supervisor
