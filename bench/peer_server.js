'use strict';
// The client side of `python3 bench/peers.py --serve` (protocol: peers.py's docstring), for
// bench/run.js: one server process for the whole run, one request per case, answered before the
// next nodecuda case starts.
//
//   const server = await PeerServer.start(python, script, { startTimeoutMs });
//   server.failure   null while it serves; else why it stopped (every later request is refused)
//   server.info      { torch: { available, version?, reason? }, cupy: … } from its ready line
//   await server.request(obj, timeoutMs)   its answer (an object); throws Error(reason) when the
//                    server failed, failed before, or gave no answer in time (then it is killed)
//   await server.close()   ends stdin and waits for the exit (killed after CLOSE_TIMEOUT_MS)
//
// stdout is read line by line (readline); each line that parses as a JSON object goes to the
// oldest pending reader, or waits in a queue for the next one. Other stdout lines are echoed to
// stderr. The server's stderr is kept (its tail names the cause when it dies), not printed.

const readline = require('node:readline');
const { spawn } = require('node:child_process');

const CLOSE_TIMEOUT_MS = 30_000;
const STDERR_KEEP = 8192;

const errorText = (e) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

class PeerServer {
  constructor(python, args) {
    this.failure = null;
    this.closing = false;
    this.info = null;
    this.lines = []; // answers no reader has taken yet
    this.readers = []; // { resolve, reject } of pending reads, oldest first
    this.stderr = '';
    this.exited = new Promise((resolve) => {
      this.child = spawn(python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
      this.child.on('close', (code, signal) => {
        this.fail(this.closing ? 'closed' : `peers.py exited with ${code ?? signal}${this.stderrTail()}`);
        resolve();
      });
      // Spawning failed (no such interpreter): 'close' may never come.
      this.child.on('error', (e) => {
        this.fail(e.code === 'ENOENT' ? `${python} not found` : errorText(e));
        if (this.child.pid === undefined) resolve();
      });
    });
    this.child.stdin.on('error', () => {}); // EPIPE after the server died: 'close' reports it
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP);
    });
    readline.createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        msg = undefined;
      }
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
        if (line.trim()) process.stderr.write(`peers.py (stdout): ${line}\n`);
        return;
      }
      const reader = this.readers.shift();
      if (reader) reader.resolve(msg);
      else this.lines.push(msg);
    });
  }

  // Starts the server and waits for its ready line. Never throws: on failure, `failure` says why.
  static async start(python, script, { startTimeoutMs }) {
    const server = new PeerServer(python, [script, '--serve']);
    try {
      const ready = await server.next(startTimeoutMs, 'to start (import torch and cupy)');
      if (ready.ready !== true) throw new Error(`peers.py --serve: expected its ready line, got ${JSON.stringify(ready).slice(0, 200)}`);
      server.info = ready;
    } catch (e) {
      server.fail(errorText(e));
      server.kill();
    }
    return server;
  }

  stderrTail() {
    const last = this.stderr.trim().split('\n').pop();
    return last ? `: ${last}` : '';
  }

  // Records the first failure and refuses every pending and later read with it.
  fail(reason) {
    this.failure ??= reason;
    for (const r of this.readers.splice(0)) r.reject(new Error(this.failure));
  }

  // Kills the server and drops our ends of its pipes: a process it started that still holds them
  // (a wrapper script's child) must not keep this one waiting.
  kill() {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined) {
      this.child.kill('SIGKILL');
    }
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) stream.destroy();
  }

  // The next JSON line; rejects when the server fails first or after timeoutMs (then kills it).
  next(timeoutMs, what) {
    if (this.lines.length) return Promise.resolve(this.lines.shift());
    if (this.failure) return Promise.reject(new Error(this.failure));
    return new Promise((resolve, reject) => {
      const reader = { resolve, reject };
      const timer = setTimeout(() => {
        this.fail(`peers.py gave no answer in ${timeoutMs / 1e3} s ${what}; killed`);
        this.kill();
      }, timeoutMs);
      const done = (f) => (v) => {
        clearTimeout(timer);
        f(v);
      };
      reader.resolve = done(resolve);
      reader.reject = done(reject);
      this.readers.push(reader);
    });
  }

  // Sends one request (one JSON line) and returns the server's answer to it.
  async request(obj, timeoutMs) {
    if (this.failure) throw new Error(this.failure);
    this.child.stdin.write(`${JSON.stringify(obj)}\n`);
    return this.next(timeoutMs, 'to a request');
  }

  async close() {
    this.closing = true;
    if (this.child.pid !== undefined) {
      this.child.stdin.end();
      const timer = setTimeout(() => this.kill(), CLOSE_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

module.exports = { PeerServer };
