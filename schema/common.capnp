@0xb2be6d014825586f;
# Vocabulary shared by every helper schema. Each helper pushes its observations to a sink the
# supervisor passes in `start`, in batches (`-> stream` methods carrying lists), and ends the
# stream explicitly with `done(summary)`. A sink dropped without `done` means the stream was cut
# short (the helper died or was stopped): the supervisor treats what it got as truncated.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

struct StreamSummary {
  # Sent once, by a helper, as the last call on its event sink.

  truncated @0 :Bool;
  # True when a limit of the helper's configuration made it drop observations (the helper's
  # schema names which limits). Dropping never stops the helper's job.

  droppedCount @1 :UInt64;
  # How many observations the limits dropped (PTY output chunks, process samples, ...).
  # Zero exactly when `truncated` is false.
}
