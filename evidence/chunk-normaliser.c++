#include "evidence/chunk-normaliser.h"

#include <stdexcept>

#include "evidence/normalise-rule.h"
#include "evidence/utf.h"

namespace rea::evidence {

struct ChunkNormaliser::Stage {
  // One rule over its input stream: input[0, start) is consumed input kept as look-back,
  // input[start, end) is held input waiting for more.
  const NormaliseRule* rule;
  std::string input;
  size_t start = 0;
  bool waitsForEnd = false;

  std::string push(std::string_view chunk, bool final) {
    std::string out;
    input.append(chunk);
    if (!final && (chunk.empty() || waitsForEnd)) return out;
    RuleProgress progress = rule->apply(input, start, final, out);
    start = progress.consumed;
    waitsForEnd = progress.waitsForEnd;
    size_t keep = rule->lookback();
    if (keep != NormaliseRule::WHOLE_HISTORY && start > keep) {
      input.erase(0, start - keep);
      start = keep;
    }
    return out;
  }
};

ChunkNormaliser::ChunkNormaliser(const NormaliseContext& context) : normaliser(context) {
  for (auto& rule : normaliser.rules())
    stages.push_back(Stage{rule.get(), {}, 0, false});
}

ChunkNormaliser::~ChunkNormaliser() noexcept(false) = default;
// Moving keeps the rules where they are (they live behind unique_ptrs), so the stages' rule
// pointers stay valid.
ChunkNormaliser::ChunkNormaliser(ChunkNormaliser&&) = default;
ChunkNormaliser& ChunkNormaliser::operator=(ChunkNormaliser&&) = default;

std::string ChunkNormaliser::run(std::string_view chunk, bool final) {
  if (finished) throw std::logic_error("ChunkNormaliser used after flush()");
  finished = final;
  std::string text(chunk);
  for (auto& stage : stages)
    text = stage.push(text, final);
  output += text;
  size_t ready = final ? output.size() : completeUtf8Prefix(output);
  std::string released = output.substr(0, ready);
  output.erase(0, ready);
  return released;
}

std::string ChunkNormaliser::push(std::string_view chunk) {
  return run(chunk, false);
}

std::string ChunkNormaliser::flush() {
  return run({}, true);
}

size_t ChunkNormaliser::heldBytes() const {
  size_t held = output.size();
  for (auto& stage : stages)
    held += stage.input.size() - stage.start;
  return held;
}

}  // namespace rea::evidence
