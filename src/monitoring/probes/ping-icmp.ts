// Owns pinging by ICMP through the system's iputils ping program (Node has no raw sockets): its arguments, bounds and output.
import { execFile } from 'node:child_process';
import { PING_EXIT_MARGIN_MS, PING_INTERVAL_MS, PING_OUTPUT_BYTES_MAX } from '../monitoring-limits.js';
import { parsePingOutput, tallyOf, type PingTally } from './ping-output.js';

/** The ping program looked up on PATH when no other is configured (Debian's iputils-ping). */
export const PING_PROGRAM_DEFAULT = 'ping';
/** Where the ping program is looked for: Debian's iputils-ping installs it in /usr/bin (/bin on older layouts). */
const PING_SEARCH_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

/** Seconds ping waits for a reply when it has had none (its -W); later replies come within twice the round trip. */
const REPLY_WAIT_S = 1;

/** What an ICMP attempt came to: a tally, the deadline passing first, or ping being unusable here (missing, not permitted). */
export type IcmpOutcome = { readonly kind: 'tally'; readonly tally: PingTally } | { readonly kind: 'timeout' } | { readonly kind: 'unusable'; readonly why: string };

/**
 * The program's arguments: numeric output, `count` requests PING_INTERVAL_MS apart, and a
 * deadline (-w, whole seconds) that ends the run PING_EXIT_MARGIN_MS before the check timeout at
 * the latest, so ping prints its summary before it would be killed.
 */
export function pingArguments(address: string, count: number, timeoutMs: number): string[] {
  const deadlineS = Math.max(1, Math.floor((timeoutMs - PING_EXIT_MARGIN_MS) / 1000));
  const intervalS = (PING_INTERVAL_MS / 1000).toString();
  return ['-n', '-c', String(count), '-i', intervalS, '-W', String(Math.min(REPLY_WAIT_S, deadlineS)), '-w', String(deadlineS), '--', address];
}

/**
 * Runs `program` against `address` and tallies its first `count` requests. The child is killed
 * at `timeoutMs` or when `signal` fires, and its output is bounded by PING_OUTPUT_BYTES_MAX;
 * output without ping's summary (a missing program, no permission for ICMP sockets) is `unusable`.
 */
export function pingByIcmp(program: string, address: string, count: number, timeoutMs: number, signal: AbortSignal): Promise<IcmpOutcome> {
  return new Promise((resolve) => {
    const options = {
      encoding: 'utf8' as const,
      timeout: timeoutMs,
      killSignal: 'SIGKILL' as const,
      maxBuffer: PING_OUTPUT_BYTES_MAX,
      signal,
      // The C locale keeps the decimal point a dot whatever the server's locale is.
      env: { PATH: PING_SEARCH_PATH, LC_ALL: 'C' },
    };
    execFile(program, pingArguments(address, count, timeoutMs), options, (error, stdout) => {
      const report = parsePingOutput(String(stdout));
      const failure = error as { code?: unknown; killed?: boolean } | null;
      const overflowed = failure?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
      if (report !== null) resolve({ kind: 'tally', tally: tallyOf(report, count) });
      else if (signal.aborted || (failure?.killed === true && !overflowed)) resolve({ kind: 'timeout' });
      else resolve({ kind: 'unusable', why: String(failure?.code ?? 'no summary in its output') });
    });
  });
}
