// Proves durability: a writer killed with SIGKILL at random moments, many times, never loses an acknowledged point.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../src/core/time.js';
import { openStore } from '../../src/store.js';

const CHILD = fileURLToPath(new URL('./fixtures/ingest-child.mjs', import.meta.url));
const KILLS = 10;
const dir = mkdtempSync(join(tmpdir(), 'strata-kill9-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Same layout as the child's batchPoints: 500 points per batch, distinct (series, time) within a batch. */
function batchPoints(b: number, base: number): { metric: string; timestamp: number; value: number }[] {
  const points = [];
  for (let i = 0; i < 500; i++) {
    const slot = ((b * 500 + i) * 7919) % (40 * 120 * 5);
    points.push({ metric: `m${slot % 5}`, timestamp: base + Math.floor(slot / 5) * 30_000 + (b % 30) * 1000, value: b * 1000 + i });
  }
  return points;
}

/** Runs the child from batch `first`, kills it with SIGKILL after `delayMs`, returns the acknowledged batch ids. */
function runAndKill(first: number, base: number, delayMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, String(first), String(base)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: number[] = [];
    let buffer = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('ACK ')) acked.push(Number(line.slice(4)));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Wait for the first acknowledgement so every run writes, then kill at a random later moment.
    const timer = setInterval(() => {
      if (acked.length > 0) {
        clearInterval(timer);
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    }, 5);
    child.on('exit', (_code, signal) => {
      clearInterval(timer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited on its own: ${stderr}`));
      else resolve(acked);
    });
  });
}

describe('engine durability under kill -9', () => {
  it(`serves every acknowledged point after ${KILLS} SIGKILLs mid-stream`, async () => {
    const base = Date.now() - 41 * HOUR_MS;
    const acked = new Set<number>();
    let next = 0;
    for (let k = 0; k < KILLS; k++) {
      const ids = await runAndKill(next, base, 20 + Math.floor(Math.random() * 400));
      for (const id of ids) acked.add(id);
      // Restart after the last acknowledged batch; an unacknowledged one may or may not be there.
      next = Math.max(next, ...ids) + 2;
    }
    expect(acked.size).toBeGreaterThan(KILLS);
    const store = await openStore({ dir, workers: 1, background: false });
    try {
      const expected = new Map<string, number>();
      for (const b of acked) for (const p of batchPoints(b, base)) expected.set(`${p.metric}@${p.timestamp}`, p.value);
      const served = new Map<string, number>();
      for (let m = 0; m < 5; m++) {
        for (let from = base; from < base + 41 * HOUR_MS; from += 12 * HOUR_MS) {
          const r = await store.query({ tenant: 'k9', metric: `m${m}`, from, to: from + 12 * HOUR_MS, resolution: 'FULL' });
          for (const v of r.values) served.set(`m${m}@${v.timestamp}`, v.average as number);
        }
      }
      let missing = 0;
      for (const [key, value] of expected) if (served.get(key) !== value) missing++;
      expect(missing, `acknowledged points lost or changed out of ${expected.size}`).toBe(0);
      // Rollups agree with the raw points after a flush.
      await store.flush();
      const min60 = await store.query({ tenant: 'k9', metric: 'm0', from: base - (base % HOUR_MS), to: base + 41 * HOUR_MS, resolution: 'MIN60' });
      const rawCount = [...served.keys()].filter((k) => k.startsWith('m0@')).length;
      expect(min60.values.reduce((sum, v) => sum + v.numPoints, 0)).toBe(rawCount);
    } finally {
      await store.close();
    }
  }, 180_000);
});
