// mcp.sdk-client (run.sh): the official MCP client SDK against `rea mcp`: the handshake, the
// tool list, two captures (the SDK validates each result against the tool's outputSchema), a
// comparison by Evidence id, a cancellation through an AbortSignal, a ping afterwards, and no
// temporary root left behind.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const rea = process.argv[2];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rea-mcp-sdk-"));
const transport = new StdioClientTransport({
  command: rea,
  args: ["mcp"],
  env: {
    ...process.env,
    TMPDIR: tmp,
    REA_PROCESS_CAPTURE_ENABLED: "true",
    REA_PROCESS_EXECUTABLE_ROOTS_JSON: '["/bin","/usr/bin"]',
    REA_PROCESS_WORKING_ROOTS_JSON: '["/tmp"]',
    REA_PROCESS_ALLOWED_ENV_JSON: '["PATH"]',
    REA_PROCESS_ALLOW_EXTERNAL_NETWORK: "true",
  },
  stderr: "inherit",
});
const client = new Client({ name: "rea-sdk-test", version: "1.0.0" });
// Reported here and tolerated: the answer to the cancelled call (the SDK forgot the request
// when it cancelled it), and a call's last two progress notifications (the assembling phase,
// then progress == total), sent right before the response: the SDK handles notifications a
// microtask later than responses, so when all three arrive in one read it has already dropped
// the call's progress handler. Anything else is a failure.
const unexpected = [];
client.onerror = (error) => {
  const text = String(error);
  if (/unknown message ID/i.test(text)) return;
  const last = /unknown token: (.*)$/s.exec(text);
  if (last) {
    const { params } = JSON.parse(last[1]);
    if (params.total !== undefined && params.progress === params.total) return;
    if (params.total === undefined && /^assembling: /.test(params.message)) return;
  }
  unexpected.push(text);
};
const slow = { timeout: 600000 };

try {
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, "rea");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name), [
    "capture_process_scenario",
    "compare_process_captures",
  ]);

  // It runs for a second, so that progress is reported while it runs (every 250 ms): the last
  // notification may be lost (see client.onerror), and a capture of /bin/echo alone can be
  // over before the first report.
  const scenario = {
    approved: true,
    executable: "/bin/sh",
    arguments: ["-c", "echo hello from the SDK; /bin/sleep 1"],
    working_directory: "/tmp",
    timeout_ms: 20000,
  };
  const progress = [];
  const left = await client.callTool({ name: "capture_process_scenario", arguments: scenario },
    undefined, { ...slow, onprogress: (p) => progress.push(p.progress) });
  assert.ok(!left.isError, JSON.stringify(left.content).slice(0, 500));
  assert.equal(left.structuredContent.predicate_type, "rea.process-capture/v4");
  assert.deepEqual(left.structuredContent.normalized_result.exit,
    { code: 0, signal: null, reason: "exited" });
  assert.equal(progress[0], 0);
  assert.ok(progress.length >= 2 && progress.every((v, i) => i === 0 || v > progress[i - 1]),
    JSON.stringify(progress));
  const right = await client.callTool({ name: "capture_process_scenario", arguments: scenario },
    undefined, slow);
  assert.ok(!right.isError);

  const compared = await client.callTool({
    name: "compare_process_captures",
    arguments: {
      left_evidence_id: left.structuredContent.evidence_id,
      right_evidence_id: right.structuredContent.evidence_id,
      left: left.structuredContent.normalized_result,
    },
  }, undefined, slow);
  assert.ok(!compared.isError, JSON.stringify(compared.content).slice(0, 500));
  assert.equal(compared.structuredContent.predicate_type, "rea.process-comparison/v3");
  assert.deepEqual(compared.structuredContent.evidence_links,
    [left.structuredContent.evidence_id, right.structuredContent.evidence_id]);

  // Cancelled once it started: the SDK sends notifications/cancelled and rejects the call.
  const abort = new AbortController();
  const long = { ...scenario, executable: "/bin/sleep", arguments: ["60"], timeout_ms: 120000 };
  await assert.rejects(client.callTool({ name: "capture_process_scenario", arguments: long },
    undefined, { ...slow, signal: abort.signal, onprogress: () => abort.abort("enough") }));
  await client.ping();  // still serving, after the cleanup of the cancelled capture
  const after = await client.callTool({ name: "capture_process_scenario", arguments: scenario },
    undefined, slow);
  assert.ok(!after.isError);
} finally {
  await client.close();
}

// rea cleans up before it exits; give a loaded machine time for that.
const deadline = Date.now() + 60000;
let left = [];
do {
  left = fs.readdirSync(tmp).filter((name) => name.startsWith("rea-process-"));
  if (left.length === 0) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
} while (Date.now() < deadline);
fs.rmSync(tmp, { recursive: true, force: true });
assert.deepEqual(left, [], "temporary roots left behind");
assert.deepEqual(unexpected, []);
console.log("mcp.sdk-client: ok");
