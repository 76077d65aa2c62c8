// Owns running the built CLI in a child process for the CLI tests, and making their temporary data directories.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The compiled entry point; `npm run build` makes it. */
export const CLI_MAIN = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

/** What a CLI run printed and how it exited. */
export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Throws a clear error when the CLI has not been built. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run npm run build first`);
}

/** Runs `node dist/src/cli/main.js ...args` (with `env` added to the environment); never rejects on a non-zero exit. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((done, fail) => {
    execFile(process.execPath, [CLI_MAIN, ...args], { timeout: 50_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        fail(new Error(`could not run the CLI: ${error.message}\n${stderr}`));
        return;
      }
      done({ status: error === null ? 0 : (error.code as number), stdout, stderr });
    });
  });
}

/** A fresh temporary directory for one test. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `strata-cli-${prefix}-`));
}
