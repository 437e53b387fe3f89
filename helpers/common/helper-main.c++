#include "helpers/common/helper-main.h"

#include "helpers/common/fault-injection.h"
#include "helpers/common/stack-trace.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <nlohmann/json.hpp>
#include <stdio.h>
#include <string.h>
#include <malloc.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define REA_ASAN 1
#endif
#ifdef REA_ASAN
#include <sanitizer/lsan_interface.h>
#endif

namespace rea::helper {

namespace {

const int RPC_FD = 3;  // the socketpair end the supervisor gives every helper (STYLE §8)

kj::ForkedPromise<void> makeFailed(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
  auto paf = kj::newPromiseAndFulfiller<void>();
  fulfiller = kj::mv(paf.fulfiller);
  return paf.promise.fork();
}

void warmUp() {
  // Lazy state the filter would forbid loading later (stack-trace.h).
  prepareStackTraces();
  // glibc shrinks the heap of a thread's own malloc arena only after reading
  // /proc/sys/vm/overcommit_memory (an openat the filter kills). One arena for all threads
  // (the pty drain thread allocates every chunk) keeps trimming on brk, which needs no file.
  mallopt(M_ARENA_MAX, 1);
}

void leakCheckNow() {
#ifdef REA_ASAN
  // LeakSanitizer's exit-time check runs a ptrace tracer thread, which no filter allows: check
  // now instead (the job code is leak-checked in-process by the unit tests).
  //
  // The sampler's thread runs SCHED_FIFO by now (its realtime boost). LeakSanitizer's caller
  // waits for its tracer in a sched_yield loop, and a realtime thread's yield gives its CPU to
  // no ordinary thread: the tracer (SCHED_RESET_ON_FORK: ordinary) ran only where another CPU
  // was free or the kernel's realtime throttle stepped in, and the check cost ~50,000 yields on
  // a busy machine. The check runs as an ordinary thread; the boost comes back after it.
  int policy = sched_getscheduler(0);
  struct sched_param param = {};
  int base = policy & ~SCHED_RESET_ON_FORK;
  bool realtime =
      policy >= 0 && (base == SCHED_FIFO || base == SCHED_RR) && sched_getparam(0, &param) == 0;
  struct sched_param ordinary = {};
  if (realtime) realtime = sched_setscheduler(0, SCHED_OTHER, &ordinary) == 0;
  __lsan_do_leak_check();
  if (realtime) sched_setscheduler(0, policy, &param);  // allowed: it was allowed before
#endif
}

[[noreturn]] void exitNow(int status) {
  // "A helper whose connection drops exits at once": no destructors (a job may hold threads or a
  // target), the kernel closes every fd; the pty target dies with us (PR_SET_PDEATHSIG).
  fflush(stdout);
  fflush(stderr);
  _exit(status);
}

int usage(const HelperSpec& spec) {
  fprintf(stderr,
          "usage: rea-%s                          (started by rea, fd 3 = its socketpair end)\n"
          "       rea-%s --standalone REQUEST.json (run one job, print its events as JSON lines)\n"
          "       rea-%s --seccomp-policy          (print the syscall filter)\n",
          spec.name.cStr(), spec.name.cStr(), spec.name.cStr());
  return 2;
}

int finishWith(kj::Maybe<kj::Exception> exception) {
  KJ_IF_MAYBE (e, exception) {
    KJ_LOG(ERROR, "helper failed", *e);
    return 1;
  }
  return 0;
}

}  // namespace

HelperContext::HelperContext(kj::AsyncIoContext& io, kj::Function<void()> lockDown, bool standalone)
    : io(io),
      standalone(standalone),
      doLockDown(kj::mv(lockDown)),
      failed(makeFailed(failFulfiller)) {}

void HelperContext::lockDown() {
  if (locked) return;
  locked = true;
  doLockDown();
}

void HelperContext::fail(kj::Exception&& exception) {
  failFulfiller->reject(kj::mv(exception));
}

kj::Promise<void> HelperContext::whenFailed() {
  return failed.addBranch();
}

int helperMain(int argc, char** argv, HelperSpec& spec) {
  kj::Maybe<kj::StringPtr> requestPath;
  if (argc == 2 && strcmp(argv[1], "--seccomp-policy") == 0) {
    auto text = spec.policy().describe();
    fwrite(text.begin(), 1, text.size(), stdout);
    return 0;
  } else if (argc == 3 && strcmp(argv[1], "--standalone") == 0) {
    requestPath = kj::StringPtr(argv[2]);
  } else if (argc != 1) {
    return usage(spec);
  }

  armFaults(spec.name.cStr());  // test-only; off unless REA_TEST_FAULT names this helper

  auto lockDown = [&spec]() {
    warmUp();
    KJ_SYSCALL(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), spec.name);
    for (auto& limit : spec.rlimits) {
      struct rlimit value = {limit.second, limit.second};
      KJ_SYSCALL(setrlimit(limit.first, &value), spec.name, limit.first);
    }
    leakCheckNow();
    spec.policy().load();
  };

  KJ_IF_MAYBE (path, requestPath) {
    // The request comes from the operator, not from a target: read it before any filter.
    evidence::Json request;
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { request = readJsonRequest(*path); })) {
      fprintf(stderr, "rea-%s: %s\n", spec.name.cStr(), e->getDescription().cStr());
      return 2;
    }
    auto io = kj::setupAsyncIo();
    HelperContext context(io, kj::mv(lockDown), /*standalone=*/true);
    JsonLines out;
    exitNow(finishWith(kj::runCatchingExceptions([&]() {
      spec.prepare(context);
      if (spec.lockDownAtStart) context.lockDown();
      spec.runStandalone(context, request, out)
          .exclusiveJoin(context.whenFailed())
          .wait(io.waitScope);
    })));
  }

  struct stat info;
  if (fstat(RPC_FD, &info) != 0 || !S_ISSOCK(info.st_mode)) {
    fprintf(stderr, "rea-%s: fd 3 is not a socket: run me through rea\n", spec.name.cStr());
    return usage(spec);
  }
  auto io = kj::setupAsyncIo();
  HelperContext context(io, kj::mv(lockDown), /*standalone=*/false);
  exitNow(finishWith(kj::runCatchingExceptions([&]() {
    spec.prepare(context);
    if (spec.lockDownAtStart) context.lockDown();
    auto stream =
        io.lowLevelProvider->wrapSocketFd(RPC_FD, kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
    capnp::TwoPartyVatNetwork network(*stream, capnp::rpc::twoparty::Side::SERVER);
    auto rpc = capnp::makeRpcServer(network, spec.makeServer(context));
    kj::Promise<void> midRunFault = kj::NEVER_DONE;
    if (auto delayMs = midRunFaultDelayMs()) {
      // Armed when the server begins serving the run, on this thread's event loop.
      whenRunStarted([&io, &midRunFault, delayMs = *delayMs]() {
        midRunFault = io.provider->getTimer()
                          .afterDelay(delayMs * kj::MILLISECONDS)
                          .then([]() { faultPoint(FaultMoment::MID_RUN); })
                          .eagerlyEvaluate(nullptr);
      });
    }
    network.onDisconnect().exclusiveJoin(context.whenFailed()).wait(io.waitScope);
  })));
}

}  // namespace rea::helper
