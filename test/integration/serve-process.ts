// Owns running `strata serve` (the built CLI) as a child process for integration tests.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built CLI; `npm test` builds it first (pretest). */
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');

/** Builds dist/ when the CLI is missing (a plain `npx vitest run` without `npm test`). */
export function ensureBuilt(): void {
  if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
}

/** Runs a CLI command to completion and returns its stdout. */
export function runCli(args: readonly string[]): string {
  return execFileSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
}

/** A running server process. */
export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the process printed on stdout up to "listening on". */
  readonly stdout: string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
}

/**
 * Spawns `strata serve --port 0` on `dataDir` and waits for its "listening on" line. The agent
 * endpoints listen on free ports too (`--agent-ports 0,0,0`) unless the arguments name ports or
 * turn them off, so servers of parallel test files never compete for the default ports.
 */
export async function startServe(dataDir: string, extraArgs: readonly string[] = []): Promise<ServeProcess> {
  const agentArgs = extraArgs.some((arg) => arg.startsWith('--agent-ports') || arg === '--no-agent-endpoint') ? [] : ['--agent-ports', '0,0,0'];
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data', dataDir, '--log-level', 'warn', ...agentArgs, ...extraArgs], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`strata serve exited (${code}) before listening:\n${stderr}`)));
  });
  return { child, url, stdout, exited };
}

/** A token for a username and API key. */
export async function tokenFor(url: string, username: string, apiKey: string): Promise<string> {
  const response = await fetch(`${url}/v2.0/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth: { 'RAX-KSKEY:apiKeyCredentials': { username, apiKey } } }),
  });
  const body = (await response.json()) as { access: { token: { id: string } } };
  return body.access.token.id;
}
