// Owns the tests of taking over a stale data directory lock while other processes try the same: exactly one wins.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../src/core/errors.js';
import { lockDirectory } from '../../src/storage/dir-lock.js';

const COMPILED = resolve(import.meta.dirname, '../../dist/src/storage/dir-lock.js');

let dir: string;
let lockPath: string;

/** A pid that named a process which has exited (until reused, which takes a while). */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', '0']);
  expect(done.status).toBe(0);
  return done.pid;
}

/** The name of the claim a taker-over creates for the file at `path` as it is now (see removeStale). */
function claimOf(path: string): string {
  const stat = statSync(path, { bigint: true });
  return `${path}.takeover-${stat.ino}-${stat.mtimeNs}`;
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

beforeAll(() => {
  if (!existsSync(COMPILED)) throw new Error(`${COMPILED} is missing: run npm run build first`);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-lock-race-'));
  lockPath = join(dir, 'LOCK');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('lockDirectory taking over a stale lock', () => {
  it('does not remove the lock a rival created after both judged the same stale file (the interleaving of the race)', () => {
    writeFileSync(lockPath, String(deadPid()));
    let rivalUnlock: (() => void) | undefined;
    let rivalInode = 0;
    // A judges the stale lock, then B judges the same file, removes it and creates its own; then A goes on.
    const error = lockError(() =>
      lockDirectory(dir, {
        onStale: () => {
          if (rivalUnlock !== undefined) return;
          rivalUnlock = lockDirectory(dir);
          rivalInode = statSync(lockPath).ino;
        },
      }),
    );
    expect(rivalUnlock).toBeDefined();
    // B's lock names this process (alive): A refuses, and B's file is the very one left in place.
    expect(error.code).toBe('STORE_LOCKED');
    expect(error.details).toEqual({ pid: process.pid });
    expect(statSync(lockPath).ino).toBe(rivalInode);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    expect(readdirSync(dir)).toEqual(['LOCK']);
    rivalUnlock?.();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('takes over the newer stale lock when the rival that replaced the judged one died too', () => {
    writeFileSync(lockPath, String(deadPid()));
    const second = deadPid();
    let replaced = false;
    const unlock = lockDirectory(dir, {
      onStale: () => {
        if (replaced) return;
        replaced = true;
        // A rival took the first stale lock over and was killed: a different file, naming another dead pid.
        rmSync(lockPath);
        writeFileSync(lockPath, String(second));
      },
    });
    expect(replaced).toBe(true);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    expect(readdirSync(dir)).toEqual(['LOCK']);
    unlock();
  });

  it('leaves a stale lock alone while a live process holds its claim, then refuses', () => {
    writeFileSync(lockPath, String(deadPid()));
    const claim = claimOf(lockPath);
    writeFileSync(claim, String(process.pid), { mode: 0o600 });
    const error = lockError(() => lockDirectory(dir));
    expect(error.code).toBe('STORE_LOCKED');
    expect(existsSync(lockPath)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['LOCK', claim.slice(dir.length + 1)].sort());
  });

  it('clears claims left by processes that died while taking the lock over, and takes it', () => {
    writeFileSync(lockPath, String(deadPid()));
    const claim = claimOf(lockPath);
    writeFileSync(claim, String(deadPid()));
    // The one that came to clear that claim died as well, holding the claim on the claim.
    writeFileSync(claimOf(claim), String(deadPid()));
    const unlock = lockDirectory(dir);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    expect((statSync(lockPath).mode & 0o777).toString(8)).toBe('600');
    expect(readdirSync(dir)).toEqual(['LOCK']);
    unlock();
  });
});

/** A child process that takes the lock of a directory whenever told to (`go <dir> <startAt>`) and answers with the outcome. */
interface Racer {
  readonly proc: ChildProcess;
  readonly next: () => Promise<string>;
}

function startRacer(): Racer {
  const code = `
    const { lockDirectory } = await import(${JSON.stringify(pathToFileURL(COMPILED).href)});
    const { createInterface } = await import('node:readline');
    for await (const line of createInterface({ input: process.stdin })) {
      const [, target, startAt] = line.split(' ');
      while (Date.now() < Number(startAt)) {}
      let outcome;
      // A winner never unlocks: it stays alive, so the losers of its round find a live holder.
      try { lockDirectory(target); outcome = 'locked'; } catch (error) { outcome = error.code ?? String(error); }
      process.stdout.write(outcome + '\\n');
    }
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  return {
    proc,
    next: async () => {
      const line = await lines.next();
      if (line.done === true) throw new Error(`racer ${proc.pid} exited`);
      return line.value;
    },
  };
}

describe('lockDirectory across processes', () => {
  it('lets exactly one of 8 processes take over a stale lock at the same instant, round after round', async () => {
    const RACERS = 8;
    const ROUNDS = 25;
    const racers = Array.from({ length: RACERS }, startRacer);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const target = join(dir, `round-${round}`);
        rmSync(target, { recursive: true, force: true });
        mkdirSync(target);
        writeFileSync(join(target, 'LOCK'), String(deadPid()));
        const startAt = Date.now() + 150;
        for (const racer of racers) racer.proc.stdin!.write(`go ${target} ${startAt}\n`);
        const outcomes = await Promise.all(racers.map((racer) => racer.next()));
        const winners = racers.filter((_, i) => outcomes[i] === 'locked');
        expect({ round, winners: winners.length }).toEqual({ round, winners: 1 });
        expect(outcomes.filter((o) => o === 'STORE_LOCKED')).toHaveLength(RACERS - 1);
        expect(readFileSync(join(target, 'LOCK'), 'utf8')).toBe(String(winners[0]?.proc.pid));
        expect(readdirSync(target)).toEqual(['LOCK']);
      }
    } finally {
      await Promise.all(
        racers.map(
          (racer) =>
            new Promise<void>((done) => {
              if (racer.proc.exitCode !== null || racer.proc.signalCode !== null) return done();
              racer.proc.once('exit', () => done());
              racer.proc.kill('SIGKILL');
            }),
        ),
      );
    }
  }, 60_000);
});
