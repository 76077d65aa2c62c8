// Owns the protocol between the bench orchestrator and its measurement child processes: progress over IPC, the result as JSON on stdout.
import { fork } from 'node:child_process';

/** A progress report from a child: `done` of `total` units of `phase`. */
export interface ProgressMessage {
  readonly type: 'progress';
  readonly phase: string;
  readonly done: number;
  readonly total: number;
}

/** Called by the orchestrator for every progress message of a child. */
export type ProgressListener = (message: ProgressMessage) => void;

/**
 * Reports progress from a child: over IPC when forked by run.ts, else as a plain line on stderr at
 * the start and the end of a phase (stdout carries only the result).
 */
export function reportProgress(phase: string, done: number, total: number): void {
  if (typeof process.send === 'function' && process.connected) {
    const message: ProgressMessage = { type: 'progress', phase, done, total };
    process.send(message);
  } else if (done === 0 || done === total) {
    process.stderr.write(`${phase}: ${done}/${total}\n`);
  }
}

/** Writes a child's result as one JSON line on stdout and lets the process end. */
export function emitResult(result: unknown): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (process.connected) process.disconnect();
}

/** Forks a compiled bench script, forwards its progress, and resolves with the JSON it printed last. */
export function runChild(script: string, args: readonly string[], onProgress: ProgressListener): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = fork(script, [...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let stdout = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('message', (message: unknown) => {
      if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'progress') onProgress(message as ProgressMessage);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`${script} ${args.join(' ')} exited with ${code ?? signal}`));
        return;
      }
      const last = stdout.trim().split('\n').pop();
      try {
        resolve(JSON.parse(last ?? ''));
      } catch {
        reject(new Error(`${script} ${args.join(' ')} printed no JSON result: ${stdout.slice(-500)}`));
      }
    });
  });
}

/** Reads the integer ms argument at `index` of argv (after the script path), or fails loudly. */
export function intArg(index: number, name: string): number {
  const raw = process.argv[2 + index];
  const value = Number(raw);
  if (raw === undefined || !Number.isSafeInteger(value)) throw new Error(`argument ${index + 1} (${name}) must be an integer, got ${String(raw)}`);
  return value;
}
