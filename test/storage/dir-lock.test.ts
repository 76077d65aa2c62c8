// Owns the tests of the data directory lock: a live holder in another process refuses, a dead holder's lock is taken over.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { lockDirectory } from '../../src/storage/dir-lock.js';

const COMPILED = resolve(import.meta.dirname, '../../dist/src/storage/dir-lock.js');

let dir: string;
let child: ChildProcess | undefined;

beforeAll(() => {
  if (!existsSync(COMPILED)) throw new Error(`${COMPILED} is missing: run npm run build first`);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-lock-'));
});
afterEach(() => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a process that takes the lock of `dir` with the compiled module and sleeps; resolves once it holds it. */
async function holderProcess(): Promise<ChildProcess> {
  const code = `
    const { lockDirectory } = await import(${JSON.stringify(pathToFileURL(COMPILED).href)});
    lockDirectory(${JSON.stringify(dir)});
    process.stdout.write('locked\\n');
    setInterval(() => {}, 60_000);
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  await new Promise<void>((resolveLocked, reject) => {
    let out = '';
    let err = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('locked')) resolveLocked();
    });
    proc.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('exit', (status) => reject(new Error(`lock holder exited early (${status}): ${err}`)));
  });
  return proc;
}

async function killed(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((done) => {
    proc.once('exit', () => done());
    proc.kill('SIGKILL');
  });
}

function lockError(run: () => unknown): StrataError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    return error as StrataError;
  }
  throw new Error('expected lockDirectory to throw');
}

describe('lockDirectory', () => {
  it('writes this process id and removes the lock on unlock', () => {
    const unlock = lockDirectory(dir);
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(process.pid));
    unlock();
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
    lockDirectory(dir)();
  });

  it('refuses with STORE_LOCKED while another live process holds the lock', async () => {
    const proc = await holderProcess();
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(proc.pid));
    const error = lockError(() => lockDirectory(dir));
    expect(error.code).toBe('STORE_LOCKED');
    expect(error.kind).toBe('conflict');
    expect(error.details).toEqual({ pid: proc.pid });
    expect(error.message).toContain(String(proc.pid));
    expect(error.message).toContain(dir);
    // The refused attempt must leave the holder's lock alone.
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(proc.pid));
  });

  it('takes over the lock once its holder was killed (kill -9 leaves the file behind)', async () => {
    const proc = await holderProcess();
    const pid = proc.pid;
    await killed(proc);
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(pid));
    const unlock = lockDirectory(dir);
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(process.pid));
    unlock();
  });

  it('takes over a stale lock file naming a dead pid', () => {
    // A process that has exited: its pid names no live process (until reused, which takes a while).
    const done = spawnSync(process.execPath, ['-e', '0']);
    expect(done.status).toBe(0);
    writeFileSync(join(dir, 'LOCK'), String(done.pid));
    const unlock = lockDirectory(dir);
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(process.pid));
    unlock();
  });

  it('takes over a lock file that is empty or not a pid (a crash between create and write)', () => {
    for (const content of ['', 'garbage', '-5', '0']) {
      writeFileSync(join(dir, 'LOCK'), content);
      const unlock = lockDirectory(dir);
      expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(process.pid));
      unlock();
    }
  });

  it('refuses again after the holder process is replaced by another live one', async () => {
    const first = await holderProcess();
    await killed(first);
    const second = await holderProcess();
    expect(readFileSync(join(dir, 'LOCK'), 'utf8')).toBe(String(second.pid));
    expect(lockError(() => lockDirectory(dir)).code).toBe('STORE_LOCKED');
  });

  it('lets exactly one of several processes starting at the same instant take a free directory, leaving no staged files', async () => {
    const RACERS = 6;
    const startAt = Date.now() + 1500;
    const code = `
      const { lockDirectory } = await import(${JSON.stringify(pathToFileURL(COMPILED).href)});
      while (Date.now() < ${startAt}) {}
      let outcome;
      try { lockDirectory(process.argv[1]); outcome = 'locked'; } catch (error) { outcome = error.code ?? String(error); }
      process.stdout.write(outcome + '\\n');
      // A winner holds on, so losers that look later still find it alive.
      setTimeout(() => process.exit(0), outcome === 'locked' ? 1500 : 0);
    `;
    const outcomes = await Promise.all(
      Array.from({ length: RACERS }, () =>
        new Promise<string>((done, reject) => {
          const proc = spawn(process.execPath, ['--input-type=module', '-e', code, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          proc.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
          proc.on('exit', () => done(out.trim()));
          proc.on('error', reject);
        }),
      ),
    );
    expect(outcomes.filter((o) => o === 'locked')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'STORE_LOCKED')).toHaveLength(RACERS - 1);
    expect(readdirSync(dir).filter((name) => name !== 'LOCK')).toEqual([]);
  }, 20_000);
});

