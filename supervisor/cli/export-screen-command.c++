// `rea export-screen CAPTURE.json [--at end|frame:N|checkpoint:NAME]` (issue 23): one rendered
// frame of a capture as SVG (screen-svg.h), for pull requests and docs. The capture is imported
// and validated first, like every command that reads one.
#include <string>

#include "supervisor/cli/capture-evidence-file.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/output.h"
#include "supervisor/cli/screen-svg.h"

namespace rea::supervisor {
namespace {

// The frame `at` names, or nullptr (with `problem` set). `checkpoint:NAME` is the screen as it
// was when the checkpoint was taken: the last frame at or before its time.
const evidence::RenderedFrame* selectFrame(const evidence::Capture& capture, const std::string& at,
                                           std::string& problem) {
  const auto& frames = capture.renderedFrames;
  if (frames.empty()) {
    problem = "the capture has no rendered screen";
    return nullptr;
  }
  if (at == "end") return &frames.back();
  if (at.rfind("frame:", 0) == 0) {
    int64_t index;
    if (!parseCount(at.substr(6), index) || index >= static_cast<int64_t>(frames.size())) {
      problem = "--at frame:N needs N between 0 and " + std::to_string(frames.size() - 1);
      return nullptr;
    }
    return &frames[static_cast<size_t>(index)];
  }
  if (at.rfind("checkpoint:", 0) == 0) {
    std::string name = at.substr(11);
    for (const auto& checkpoint : capture.filesystemCheckpoints) {
      if (checkpoint.name != name) continue;
      const evidence::RenderedFrame* chosen = &frames.front();
      for (const auto& frame : frames) {
        if (frame.atMs <= checkpoint.atMs) chosen = &frame;
      }
      return chosen;
    }
    problem = "the capture has no checkpoint named " + name;
    return nullptr;
  }
  problem = "--at takes end, frame:N or checkpoint:NAME";
  return nullptr;
}

}  // namespace

int runExportScreenCommand(const std::vector<std::string>& args) {
  CommandLine line("export-screen");
  std::string at = "end";
  line.app.add_option("--at", at);
  if (auto usage = line.parse(args, 1, "expected one capture Evidence file")) return *usage;
  CaptureEvidenceFile read;
  if (auto error = readCaptureEvidence(line.files[0], read)) return printError(*error, false);
  std::string problem;
  const evidence::RenderedFrame* frame = selectFrame(read.capture, at, problem);
  if (frame == nullptr) return usageError(problem, "export-screen");
  return printText(renderScreenSvg(*frame));
}

}  // namespace rea::supervisor
