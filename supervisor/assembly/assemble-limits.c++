#include "supervisor/assembly/assemble-limits.h"

#include "evidence/limits.h"

namespace rea::supervisor {

std::vector<std::string> outputLimitSentences(const evidence::Scenario& scenario,
                                              const PtyRecord& pty) {
  std::vector<std::string> sentences;
  if (pty.outputTruncated) {
    uint64_t accepted = 0;
    for (const auto& chunk : pty.output)
      accepted += chunk.data.size();
    auto byteLimit = static_cast<uint64_t>(scenario.limits.outputBytes);
    std::string dropped = std::to_string(pty.droppedChunks) + " further output chunk" +
                          (pty.droppedChunks == 1 ? " was" : "s were") + " dropped";
    // Only bytes drop output: reads past limits.frames join the last frame (SPEC A15).
    sentences.push_back(
        std::string(LIMIT_SENTENCE_PREFIX) + "limits.output_bytes is " + std::to_string(byteLimit) +
        ", " + std::to_string(accepted) + " bytes were kept and " + dropped +
        "; keeping everything needs limits.output_bytes above " + std::to_string(byteLimit) +
        " (up to " + std::to_string(evidence::limit::OUTPUT_BYTES.max) + ").");
  }
  if (pty.renderTruncated) {
    sentences.push_back(
        std::string(LIMIT_SENTENCE_PREFIX) + "a rendered screen alone costs more than " +
        "limits.output_bytes (" + std::to_string(scenario.limits.outputBytes) +
        "); such screens are missing (past the budget a screen replaces the newest ones, "
        "SPEC A15).");
  }
  return sentences;
}

std::string filesystemLimitSentence(const evidence::Scenario& scenario) {
  return std::string(LIMIT_SENTENCE_PREFIX) + "a filesystem snapshot went past limits.files (" +
         std::to_string(scenario.limits.files) + "), limits.file_bytes (" +
         std::to_string(scenario.limits.fileBytes) + ") or limits.filesystem_depth (" +
         std::to_string(scenario.limits.filesystemDepth) + "); files beyond it are missing.";
}

std::string pidsLimitSentence(uint32_t maxPids, uint64_t refused) {
  return std::string(LIMIT_SENTENCE_PREFIX) + "the target reached REA_PROCESS_MAX_PIDS (" +
         std::to_string(maxPids) + " processes at once); " + std::to_string(refused) +
         (refused == 1 ? " process creation was" : " process creations were") +
         " refused (fork failed with EAGAIN).";
}

}  // namespace rea::supervisor
