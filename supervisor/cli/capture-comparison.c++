#include "supervisor/cli/capture-comparison.h"

#include <malloc.h>

#include <ctime>
#include <exception>
#include <thread>

#include <nlohmann/json.hpp>

#include "evidence/timestamp.h"

namespace rea::supervisor {
namespace {

using namespace rea::evidence;

std::string differingContractFields(const Json& left, const Json& right) {
  std::string out;
  auto note = [&](const std::string& key) {
    if (!out.empty()) out += ", ";
    out += key;
  };
  for (auto it = left.begin(); it != left.end(); ++it) {
    if (!right.contains(it.key()) || right[it.key()] != it.value()) note(it.key());
  }
  for (auto it = right.begin(); it != right.end(); ++it) {
    if (!left.contains(it.key())) note(it.key());
  }
  return out;
}

}  // namespace

int64_t epochNowMs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

std::optional<std::string> comparisonRefusal(const Capture& leftCapture,
                                             const Capture& rightCapture,
                                             std::optional<int64_t> maxCaptureAgeMs,
                                             int64_t nowEpochMs) {
  const Manifest& left = leftCapture.manifest;
  const Manifest& right = rightCapture.manifest;
  if (left.comparisonContractSha256 != right.comparisonContractSha256) {
    return "The two captures were made under incompatible comparison contracts; these fields "
           "differ: " +
           differingContractFields(*left.comparisonContract, *right.comparisonContract) + ".";
  }
  if (maxCaptureAgeMs) {
    auto leftDone = parseIsoTimestamp(left.completedAt);
    auto rightDone = parseIsoTimestamp(right.completedAt);
    if (auto tooOld = checkCaptureAge(maxCaptureAgeMs, nowEpochMs, leftDone.value_or(0),
                                      rightDone.value_or(0))) {
      return *tooOld + ".";
    }
  }
  return std::nullopt;
}

std::optional<CommandError> compareCaptureFiles(const std::string& leftFile,
                                                const std::string& rightFile,
                                                const CompareOptions& options,
                                                std::optional<int64_t> maxCaptureAgeMs,
                                                CaptureComparison& out, bool keepFrames) {
  // The two files are read, parsed and imported (checked, every commitment hashed) at the same
  // time, the left one on a thread of its own: on a machine with a second core that halves the
  // wait. Each reader lets go of its file's text as it parses on (input-file.h), so both at once
  // take little more memory than one after the other. The left file's error, if any, is the one
  // reported, as when they were read in turn.
  std::optional<CommandError> leftError;
  std::exception_ptr leftFailure;
  std::thread leftReader([&]() {
    try {
      leftError = readCaptureEvidence(leftFile, out.left);
    } catch (...) {
      leftFailure = std::current_exception();  // std::bad_alloc: rethrown below
    }
  });
  std::optional<CommandError> rightError;
  try {
    rightError = readCaptureEvidence(rightFile, out.right);
  } catch (...) {
    leftReader.join();
    throw;
  }
  leftReader.join();
  // The parsed documents are gone, but their memory stays with the allocator (the left one in
  // the thread's own arena, which it does not give back by itself): hand it back before the
  // comparison allocates its own.
  malloc_trim(0);
  if (leftFailure) std::rethrow_exception(leftFailure);
  if (leftError) return leftError;
  if (rightError) return rightError;
  if (auto refusal =
          comparisonRefusal(out.left.capture, out.right.capture, maxCaptureAgeMs, epochNowMs())) {
    return executionFailure(*refusal);
  }

  // Compared in JSON form: the form both sides were validated in, unknown members dropped.
  auto form = [keepFrames](Capture& capture) {
    return keepFrames ? toJson(capture) : toJson(std::move(capture));
  };
  out.comparison = compareCaptures(form(out.left.capture), form(out.right.capture), options);
  return std::nullopt;
}

}  // namespace rea::supervisor
