#pragma once
// `rea mcp`: a Model Context Protocol server on a pair of file descriptors (issue 26): JSON-RPC
// 2.0 messages, one per line (jsonrpc.h), protocol revision 2025-11-25 (an older revision the
// client asks for is answered with that one), the tools of mcp-tools.h.
//
// Threads: this thread reads, answers `initialize`, `ping`, `tools/list`, comparisons and
// cancellations; one capture thread runs the captures, one at a time in the order asked (each
// on its own event loop, capture-scenario.h), so the server keeps answering while a capture
// runs. (The one exception to "one event loop per process": captureScenario() owns its loop
// and blocks its thread until the Evidence is assembled.) `notifications/cancelled` for a running
// capture resolves its cancellation promise (a cross-thread fulfiller): the capture stops, its
// cleanup completes, and the call is answered with the `cancelled` error; a queued capture is
// dropped and answered the same way. Progress notifications are sent for a call that gave a
// `progressToken`. The ledger (mcp-ledger.h) belongs to the connection.
//
// Ends when the input reaches end of file or SIGINT, SIGTERM or SIGHUP arrives (these must be
// blocked in every thread before serveMcp() starts: it reads them with a signalfd): a running
// capture is cancelled and cleaned up first.
//
// Errors: none thrown for anything a client sends; protocol errors are answered as JSON-RPC
// errors, tool failures as tool error results. A failed write (the client went away) ends
// the session like end of file.

namespace rea::supervisor {

int serveMcp(int inputFd, int outputFd, int signalFd);
// Serves one client; returns the exit code (0 after end of input or a signal).

}  // namespace rea::supervisor
