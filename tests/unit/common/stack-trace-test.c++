// backtrace(3) as our binaries have it (helpers/common/stack-trace.h): frames from the caller
// on, and no library loaded to get them (a locked-down helper's filter would kill the load).

#include "helpers/common/stack-trace.h"

#include <execinfo.h>

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <kj/debug.h>

#include "tests/test-support.h"

namespace rea::helper {
namespace {

[[maybe_unused]] std::string mappings() {
  std::ifstream in("/proc/self/maps");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

__attribute__((noinline)) int traceHere(void** frames, int capacity) {
  volatile int count = backtrace(frames, capacity);  // not a tail call: traceHere has a frame
  return count;
}

TEST(StackTrace, RecordsTheCallersFramesUpToTheCapacity) {
  prepareStackTraces();
  void* frames[64];
  int count = traceHere(frames, 64);
  ASSERT_GE(count, 3) << "traceHere, the test body, gtest's caller...";
  for (int i = 0; i < count; ++i)
    EXPECT_NE(frames[i], nullptr) << i;
    // traceHere's frame is among the first (ours records from backtrace's caller on; the
    // sanitizers' interceptor may add its own frames before it, and their unoptimised,
    // instrumented traceHere is longer).
#ifdef REA_TEST_ASAN
  const uintptr_t bodyBytes = 2048;
#else
  const uintptr_t bodyBytes = 256;
#endif
  auto start = reinterpret_cast<uintptr_t>(reinterpret_cast<void*>(&traceHere));
  bool found = false;
  for (int i = 0; i < count && i < 4; ++i) {
    auto at = reinterpret_cast<uintptr_t>(frames[i]);
    if (at > start && at - start < bodyBytes) found = true;
  }
  EXPECT_TRUE(found) << "no frame in traceHere";

  void* two[2];
  EXPECT_EQ(traceHere(two, 2), 2);
  EXPECT_EQ(traceHere(two, 0), 0);
}

TEST(StackTrace, AnExceptionsTraceLoadsNoLibrary) {
#ifdef REA_TEST_ASAN
  GTEST_SKIP() << "sanitizer builds keep glibc's backtrace (libgcc_s is loaded from the start)";
#else
  prepareStackTraces();
  EXPECT_EQ(mappings().find("libgcc_s"), std::string::npos) << "loaded before any trace";
  auto exception = kj::runCatchingExceptions([]() { KJ_FAIL_REQUIRE("a traced failure"); });
  ASSERT_TRUE(exception != nullptr);
  EXPECT_EQ(mappings().find("libgcc_s"), std::string::npos) << "a stack trace loaded libgcc_s";
#endif
}

}  // namespace
}  // namespace rea::helper
