// Checks that the tests type-check (vitest only strips their types): tsc --noEmit on tsconfig.test.json (src, bench, node-side tests) and tsconfig.test-console.json (src/console and the console tests, with the DOM lib) exits 0.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** Each config checks its whole program in one process: tens of seconds on a busy 2-core machine. */
const TSC_TIMEOUT_MS = 120_000;

/** Runs the repository's tsc on `config` without emitting; its exit code and everything it printed. */
function typecheck(config: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSC, '-p', config, '--noEmit', '--pretty', 'false'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('the test configs type-check', () => {
  it.each(['tsconfig.test.json', 'tsconfig.test-console.json'])(
    'tsc -p %s --noEmit exits 0',
    async (config) => {
      const { code, output } = await typecheck(config);
      expect(code, `tsc -p ${config} --noEmit:\n${output}`).toBe(0);
    },
    TSC_TIMEOUT_MS,
  );
});
