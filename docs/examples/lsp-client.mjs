#!/usr/bin/env node
// An editor's side of a sandboxed language server, in Node.
//
// Usage: lsp-client.mjs [--sbox=PATH] [--server=NAME] [--sbox-option=OPT]...
//                       PROJECT
//
// Starts NAME (default: clangd) under `sbox-exec --profile=clangd` in the C
// project PROJECT, which holds main.c and util.h: main.c calls answer(),
// which util.h defines.  Node cannot receive a datagram with its sender's
// credentials without a native module, so the status comes on a fourth
// pipe of the child, descriptor 3 (`--status-fd=3`): only the child can
// write to it.  Then one LSP session: initialize (processId null),
// initialized, didOpen main.c, textDocument/definition on the call (which
// must lead to util.h), shutdown, exit.  See docs/INTEGRATION.md.
//
// Exit: 0 the session worked; 1 it did not; 2 usage; 3 the sandbox was
// refused (the reason is printed); 4 the server is not installed in the
// sandbox's view, or cannot be executed there.

import { spawn } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { constants } from "node:os";
import { basename, join } from "node:path";
import process from "node:process";

const TIMEOUT = 30000; // ms, for the status and for each answer

// The status line from descriptor 3, or null when sbox-exec closed it (or
// ended) without one: a mode that sends no status (--help, --print) must
// not leave us waiting for the whole timeout.
function receiveStatus(child) {
  return new Promise((resolve) => {
    let text = "";
    const done = (status) => {
      clearTimeout(timer);
      resolve(status);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done(null);
    }, TIMEOUT);
    const channel = child.stdio[3];
    channel.setEncoding("utf8");
    channel.on("data", (chunk) => {
      text += chunk;
      const nl = text.indexOf("\n");
      if (nl >= 0) done(JSON.parse(text.slice(0, nl)));
    });
    // sbox-exec closes the descriptor once it has written the line; the
    // line, when there is one, is complete before that.
    channel.on("end", () => done(null));
    channel.on("error", () => done(null));
    child.on("exit", () => setImmediate(() => channel.destroyed && done(null)));
  });
}

// JSON-RPC with Content-Length framing over the server's stdio.
class Lsp {
  constructor(child) {
    this.child = child;
    this.nextId = 1;
    this.pending = new Map();
    this.buf = Buffer.alloc(0);
    child.stdout.on("data", (chunk) => this.receive(chunk));
    child.stdout.on("end", () => {
      for (const { reject } of this.pending.values())
        reject(new Error("the server closed its output"));
    });
  }

  receive(chunk) {
    this.buf = Buffer.concat([this.buf, chunk]);
    for (;;) {
      const end = this.buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const m = /content-length:\s*(\d+)/i.exec(this.buf.toString("ascii", 0, end));
      if (!m) throw new Error("a message without Content-Length");
      const len = Number(m[1]);
      if (this.buf.length < end + 4 + len) return;
      const msg = JSON.parse(this.buf.toString("utf8", end + 4, end + 4 + len));
      this.buf = this.buf.subarray(end + 4 + len);
      // Notifications (diagnostics, logs) are not what we wait for.
      if (msg.method === undefined && this.pending.has(msg.id)) {
        const { resolve, reject, method } = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) reject(new Error(`${method}: ${JSON.stringify(msg.error)}`));
        else resolve(msg.result);
      }
    }
  }

  send(method, params, id) {
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  notify(method, params) {
    this.send(method, params, undefined);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${method} in ${TIMEOUT / 1000} s`)),
        TIMEOUT,
      );
      this.pending.set(id, {
        method,
        resolve: (r) => (clearTimeout(timer), resolve(r)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.send(method, params, id);
    });
  }
}

async function session(child, project) {
  const lsp = new Lsp(child);
  // processId null: the server runs in the sandbox's own pid namespace,
  // where our pid names nobody; servers built on vscode-languageserver
  // check it with kill(pid, 0) and exit at once, unless sbox-exec runs
  // with --lsp, as the language-server profiles do.  The sandbox dies
  // with sbox-exec anyway, and sbox-exec with us.
  await lsp.request("initialize", {
    processId: null,
    rootUri: `file://${project}`,
    capabilities: {},
  });
  lsp.notify("initialized", {});
  const mainC = join(project, "main.c");
  const text = readFileSync(mainC, "utf8");
  lsp.notify("textDocument/didOpen", {
    textDocument: { uri: `file://${mainC}`, languageId: "c", version: 1, text },
  });
  const lines = text.split("\n");
  const line = lines.findIndex((s) => s.includes("answer()"));
  const result = await lsp.request("textDocument/definition", {
    textDocument: { uri: `file://${mainC}` },
    position: { line, character: lines[line].indexOf("answer") },
  });
  const utilH = join(project, "util.h");
  const want = readFileSync(utilH, "utf8")
    .split("\n")
    .findIndex((s) => s.includes("answer(void)"));
  const got = (Array.isArray(result) ? result : [result])
    .filter(Boolean)
    .map((l) => [l.uri ?? l.targetUri, (l.range ?? l.targetSelectionRange).start.line]);
  if (!got.some(([uri, l]) => uri === `file://${utilH}` && l === want))
    throw new Error(
      `definition: expected util.h line ${want + 1}, got ${JSON.stringify(got)}`,
    );
  console.log(`definition: ${basename(utilH)}:${want + 1}`);
  await lsp.request("shutdown", null);
  lsp.notify("exit", null);
  child.stdin.end();
}

function parseArgs(argv) {
  const opts = { sbox: process.env.SBOX_EXEC ?? "sbox-exec", server: "clangd", extra: [] };
  const rest = [];
  for (const arg of argv) {
    if (arg.startsWith("--sbox=")) opts.sbox = arg.slice(7);
    else if (arg.startsWith("--server=")) opts.server = arg.slice(9);
    else if (arg.startsWith("--sbox-option=")) opts.extra.push(arg.slice(14));
    else rest.push(arg);
  }
  if (rest.length !== 1) {
    console.error(
      "usage: lsp-client.mjs [--sbox=PATH] [--server=NAME] [--sbox-option=OPT]... PROJECT",
    );
    process.exit(2);
  }
  return [opts, realpathSync(rest[0])];
}

function exited(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve(child.exitCode ?? 128 + constants.signals[child.signalCode]);
    else child.on("exit", (code, signal) => resolve(code ?? 128 + constants.signals[signal]));
  });
}

async function main() {
  const [opts, project] = parseArgs(process.argv.slice(2));
  const child = spawn(
    opts.sbox,
    ["--status-fd=3", "--profile=clangd", ...opts.extra, "--", opts.server],
    { cwd: project, stdio: ["pipe", "pipe", "pipe", "pipe"] },
  );
  const ended = exited(child);
  // The server's log (and sbox-exec's words): kept, shown on failure.
  let log = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (s) => (log = (log + s).slice(-4000)));
  child.on("error", (e) => console.error(`cannot start ${opts.sbox}: ${e.message}`));

  const status = await receiveStatus(child);
  if (status === null) {
    console.error(`no status: sbox-exec ended with ${await ended}`);
    return 1;
  }
  if (status.status === "command-not-found" || status.status === "command-not-executable") {
    // An editor says "clangd is not installed" here, not "crashed".
    await ended;
    console.log(`${opts.server} cannot start in the sandbox: ${status.status}: ${status.detail}`);
    return 4;
  }
  if (status.status !== "success") {
    // Refused: nothing runs.  An editor shows the reason and offers to
    // run the server unsandboxed (marked as such) or not at all.
    await ended;
    console.log(
      `sandbox refused: ${status.status}: ${status.detail}` +
        (status.hint ? ` (hint: ${status.hint})` : ""),
    );
    return 3;
  }
  console.log(`sandboxed: ${status.command}`);
  try {
    await session(child, project);
    const code = await Promise.race([
      ended,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("the server did not exit")), TIMEOUT).unref(),
      ),
    ]);
    console.log(`server exited with ${code}`);
    return code === 0 ? 0 : 1;
  } catch (e) {
    child.kill("SIGKILL");
    console.error(`LSP session failed: ${e.message}\n${log}`);
    return 1;
  }
}

process.exitCode = await main();
