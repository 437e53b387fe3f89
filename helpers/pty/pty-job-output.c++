// PtyJobImpl's output path: the drain thread's chunks, in read order, through the renderer (a
// frame after each, the answers to queries after the frame) to the sink, as fast as the sink
// wants them; the rest waits raw in the backlog.

#include <kj/debug.h>

#include "helpers/pty/pty-job-impl.h"

namespace rea::helper {

void PtyJobImpl::emit(PtyJobEvent&& event) {
  // Chunks are stamped by the drain thread, the rest by the loop: clamp so the stream never
  // goes back in time (the difference is the hand-off latency, microseconds).
  if (event.atNs < lastEmittedNs) event.atNs = lastEmittedNs;
  lastEmittedNs = event.atNs;
  sink.event(kj::mv(event));
}

void PtyJobImpl::takeOutput(Emit emitting) {
  // Every loop-side event first takes what the drain thread queued, with ALL, so that output
  // read before it is emitted before it. Otherwise chunks are emitted while the sink wants
  // more; the rest waits in `backlog` (raw) for whenWantsMore().
  if (drain == nullptr) return;
  auto taken = KJ_ASSERT_NONNULL(drain)->take();
  // The drain thread applied the raw limits (B §6.5) as it read; a dropped chunk is still
  // output for the idle watchdog.
  if (taken.dropped != dropped) ++outputChunks;
  dropped = taken.dropped;
  if (taken.lastDroppedNs > lastOutputNs) lastOutputNs = taken.lastDroppedNs;
  outputChunks += taken.chunks.size();
  for (auto& chunk : taken.chunks) {
    if (chunk.atNs > lastOutputNs) lastOutputNs = chunk.atNs;
    backlog.push_back(kj::mv(chunk));
  }
  emitBacklog(emitting);
  if (taken.synced >= syncGeneration || taken.ended) {
    KJ_IF_MAYBE (f, synced) {
      (*f)->fulfill();
      synced = nullptr;
    }
  }
  if (taken.ended && !drainEnded) {
    drainEnded = true;
    KJ_IF_MAYBE (error, taken.error) {
      failedFulfiller->reject(KJ_EXCEPTION(FAILED, "pty drain failed", *error));
    }
    drainedFulfiller->fulfill();
  }
}

void PtyJobImpl::emitBacklog(Emit emitting) {
  while (!backlog.empty()) {
    if (emitting == AS_SINK_WANTS && !sink.wantsMore()) {
      if (!resumeArmed) {
        resumeArmed = true;
        tasks.add(sink.whenWantsMore().then([this]() {
          resumeArmed = false;
          takeOutput();
        }));
      }
      break;
    }
    DrainThread::Chunk chunk = kj::mv(backlog.front());
    backlog.pop_front();
    PtyJobEvent event{PtyJobEvent::Kind::OUTPUT, chunk.atNs};
    event.output = kj::mv(chunk.data);
    // B §6.11: the accepted chunk goes to the emulator, then one frame with its time; the
    // answers to queries in it follow the frame.
    renderer.feed(event.output);
    emit(kj::mv(event));
    captureFrame(chunk.atNs);
    answerQueries();
    ++emittedChunks;
  }
  for (size_t i = 0; i < emittedWaiters.size();) {
    if (emittedWaiters[i].chunks <= emittedChunks) {
      emittedWaiters[i].fulfiller->fulfill();
      emittedWaiters.erase(emittedWaiters.begin() + long(i));
    } else {
      ++i;
    }
  }
}

kj::Promise<void> PtyJobImpl::outputEmitted() {
  // Resolves once every chunk taken so far has been emitted, as the sink lets it: the exit and
  // the end wait for it rather than emit a whole backlog's events at once.
  uint64_t chunks = emittedChunks + backlog.size();
  if (emittedChunks >= chunks) return kj::READY_NOW;
  auto paf = kj::newPromiseAndFulfiller<void>();
  emittedWaiters.push_back({chunks, kj::mv(paf.fulfiller)});
  return kj::mv(paf.promise);
}

void PtyJobImpl::answerQueries() {
  // Programs block on these answers (DA, DSR): write each back at once, as a terminal would,
  // and report it so the supervisor records it as an automatic interaction.
  for (auto& reply : renderer.takeReplies()) {
    if (reaped || finishing) continue;  // writeToTarget() drops it: nothing was answered
    writeToTarget(reply.reply);
    PtyJobEvent event{PtyJobEvent::Kind::REPLIED, monotonicNowNs()};
    event.reply = kj::mv(reply);
    emit(kj::mv(event));
  }
}

void PtyJobImpl::captureFrame(uint64_t atNs) {
  auto frame = renderer.capture(renderBudget);
  if (!frame) return;  // over the rendered budget: counted as truncated by the budget
  ++renderedFrames;
  PtyJobEvent event{PtyJobEvent::Kind::RENDERED, atNs};
  event.rendered = kj::mv(*frame);
  emit(kj::mv(event));
}

kj::Promise<void> PtyJobImpl::watchOutput() {
  takeOutput();
  if (drainEnded) return kj::READY_NOW;
  return KJ_ASSERT_NONNULL(readyObserver)->whenBecomesReadable().then([this]() {
    return watchOutput();
  });
}

}  // namespace rea::helper
