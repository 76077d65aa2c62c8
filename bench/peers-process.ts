// Owns the peer bench's server processes: free loopback ports, spawning, waiting until ready, peak RSS, stopping by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a server may take to answer its readiness probe. */
const READY_TIMEOUT_MS = 60_000;
/** Pause between readiness probes. */
const READY_POLL_MS = 100;
/** How long a server gets to exit after SIGTERM before it is killed (Strata seals nothing on exit, VM flushes). */
const STOP_TIMEOUT_MS = 60_000;
/** Characters of a server's stderr kept for error messages. */
const STDERR_TAIL_CHARS = 4_000;
/** /proc/PID/status counts kB of 1,024 bytes. */
const PROC_KB_BYTES = 1_024;

/** A server process the bench started, with what it printed and a promise of its exit. */
export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The exact command line, for the report. */
  readonly command: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** The last few thousand characters of stderr. */
  stderrTail(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<number | string>;
  /** True once the process has ended. */
  hasExited(): boolean;
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Spawns `file args` with stdin closed, collecting stdout and the tail of stderr. */
export function spawnServer(file: string, args: readonly string[], cwd?: string): ServerProcess {
  const child = spawn(file, [...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd !== undefined ? { cwd } : {}) });
  if (child.pid === undefined) throw new Error(`could not start ${file}`);
  let out = '';
  let err = '';
  let ended = false;
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  return {
    child,
    pid: child.pid,
    command: [file, ...args].join(' '),
    stdout: () => out,
    stderrTail: () => err,
    exited,
    hasExited: () => ended,
  };
}

/** Polls `probe` until it answers true; fails when the process exits or READY_TIMEOUT_MS passes. */
export async function waitReady(server: ServerProcess, what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (server.hasExited()) throw new Error(`${what} exited before it was ready: ${server.stderrTail()}`);
    // A refused connection only means "not yet".
    if (await probe().catch(() => false)) return;
    await sleep(READY_POLL_MS);
  }
  throw new Error(`${what} was not ready within ${READY_TIMEOUT_MS} ms: ${server.stderrTail()}`);
}

/** Sends SIGTERM to the process (by its PID), then SIGKILL after STOP_TIMEOUT_MS; resolves with how it ended. */
export async function stopServer(server: ServerProcess): Promise<{ exit: number | string; killed: boolean; seconds: number }> {
  const started = performance.now();
  if (server.hasExited()) return { exit: await server.exited, killed: false, seconds: 0 };
  process.kill(server.pid, 'SIGTERM');
  const timedOut = Symbol('timeout');
  // Unreferenced: the child's own handle keeps the loop alive while it runs, and a finished stop must not hold the process for the timeout.
  const timer = sleep(STOP_TIMEOUT_MS, timedOut, { ref: false });
  const first = await Promise.race([server.exited, timer]);
  if (first !== timedOut) return { exit: first as number | string, killed: false, seconds: (performance.now() - started) / 1000 };
  process.kill(server.pid, 'SIGKILL');
  return { exit: await server.exited, killed: true, seconds: (performance.now() - started) / 1000 };
}

/** The VmHWM line of a /proc/PID/status text in bytes (peak resident set size), or NaN when absent. */
export function parseVmHwmBytes(statusText: string): number {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(statusText);
  return match?.[1] === undefined ? NaN : Number(match[1]) * PROC_KB_BYTES;
}

/** Peak RSS of a running process, from /proc/PID/status (Linux). */
export function peakRssBytes(pid: number): number {
  return parseVmHwmBytes(readFileSync(`/proc/${pid}/status`, 'utf8'));
}
