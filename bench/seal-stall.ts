// Owns measuring the longest event-loop stall while the engine seals one big head window.
// Run: npm run build && node dist/bench/seal-stall.js [points] [series]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../src/core/clock.js';
import { INGEST_BATCH_POINTS_MAX } from '../src/core/limits.js';
import { PointColumnsBuilder } from '../src/model/point-columns.js';
import { openStore } from '../src/store.js';

/** On a 2-hour window boundary, so every point lands in one FULL window. */
const T0 = Date.UTC(2026, 10, 22, 12);

/** What sealing one window cost the event loop. */
export interface SealStall {
  readonly points: number;
  readonly series: number;
  /** Longest gap between two event-loop turns while the window was being sealed, in ms. */
  readonly longestStallMs: number;
  /** Event-loop turns the seal left to others (1 when it ran in one synchronous block). */
  readonly turns: number;
  /** From the start of flush() until the head was empty, in ms. */
  readonly sealMs: number;
}

/** Writes `points` points over `series` series into one window, then seals it with flush() and watches the loop. */
export async function measureSealStall(points: number, series: number): Promise<SealStall> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-seal-stall-'));
  const clock = new ManualClock(T0 + 60 * 60_000);
  const store = await openStore({ dir, clock, background: false, workers: 1 });
  try {
    const builder = new PointColumnsBuilder();
    const perSeries = Math.ceil(points / series);
    for (let written = 0; written < points; ) {
      builder.reset();
      for (let k = 0; k < INGEST_BATCH_POINTS_MAX && written < points; k++, written++) {
        const s = written % series;
        const i = Math.floor(written / series);
        builder.push('bench', `m${s}`, T0 + i * Math.floor(3_600_000 / perSeries), Math.sin(written), undefined);
      }
      await store.writeColumns(builder);
    }
    let last = performance.now();
    let longest = 0;
    let turns = 0;
    let sealedAt = NaN;
    const started = performance.now();
    const beat = (): void => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      turns++;
      last = now;
      if (store.stats().headPoints === 0) sealedAt = now;
      else setImmediate(beat);
    };
    setImmediate(beat);
    const flushed = store.flush();
    // The seal is done once the head is empty; the rollups flush() then waits for are not measured.
    while (Number.isNaN(sealedAt)) await new Promise((resolve) => setTimeout(resolve, 5));
    await flushed;
    return { points, series, longestStallMs: round(longest), turns, sealMs: round(sealedAt - started) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

const [, , pointsArg, seriesArg] = process.argv;
if (process.argv[1]?.endsWith('seal-stall.js') === true) {
  const result = await measureSealStall(Number(pointsArg ?? 2_000_000), Number(seriesArg ?? 10_000));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
