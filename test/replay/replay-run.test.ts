// Tests a replay run over real recording files and a fake target: file order, only recorded routes, skipped and gap frames, the timeline, time shifts, damage, bounded look-ahead.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeRecording } from '../../src/recording/recording-codec.js';
import type { RecordedExchange, RecordingFrame, RecordingHeader } from '../../src/recording/recording-types.js';
import { openRecordings, readAhead, runReplay, type ReplayRunOptions } from '../../src/replay/replay-run.js';
import type { ReplayTarget, TargetRequest } from '../../src/replay/replay-target.js';
import { REPLAY_DAY_MS } from '../../src/replay/replay-transform.js';

const NOW_MS = 1_800_000_000_000;

function header(startedAtMs: number, sequence = 0): RecordingHeader {
  return { kind: 'header', version: 1, startedAtMs, sequence, producer: 'test', description: 'replay-run test' };
}

function ingest(atMs: number, name: string, timeMs: number, status = 200): RecordedExchange {
  const body = Buffer.from(JSON.stringify([{ metricName: name, metricValue: 1, collectionTime: timeMs, ttlInSeconds: 60 }]));
  return { kind: 'exchange', atMs, method: 'POST', url: '/ingest/v2.0/rec/ingest', tenant: 'rec', contentType: 'application/json', body, status, durationMs: 1 };
}

function fakeTarget(status = 200): ReplayTarget & { readonly sent: TargetRequest[] } {
  const sent: TargetRequest[] = [];
  return {
    url: 'http://target.test/',
    tenant: 'mine',
    sent,
    async send(request) {
      sent.push(request);
      return { kind: 'response', status, latencyUs: 250 };
    },
    close() {},
  };
}

function names(target: { sent: TargetRequest[] }): string[] {
  return target.sent.map((r) => (JSON.parse(Buffer.from(r.body as Uint8Array).toString('utf8')) as Array<{ metricName: string }>)[0]?.metricName ?? '');
}

function times(target: { sent: TargetRequest[] }): number[] {
  return target.sent.map((r) => (JSON.parse(Buffer.from(r.body as Uint8Array).toString('utf8')) as Array<{ collectionTime: number }>)[0]?.collectionTime ?? 0);
}

describe('runReplay', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-replay-run-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, head: RecordingHeader, frames: readonly RecordingFrame[]): string {
    const path = join(dir, name);
    writeFileSync(path, encodeRecording(head, frames));
    return path;
  }

  async function run(paths: readonly string[], target: ReplayTarget, options: Partial<ReplayRunOptions> = {}) {
    let clockMs = NOW_MS;
    return runReplay({
      readers: await openRecordings(paths),
      target,
      mode: { kind: 'max' },
      concurrency: 1,
      tenantPairs: new Map(),
      timeShift: 'none',
      includeRefused: false,
      clock: { now: () => clockMs++, sleep: async () => {} },
      ...options,
    });
  }

  /** A virtual clock whose sleeps advance it and are written down. */
  function virtualClock(startMs: number): { clock: ReplayRunOptions['clock']; sleeps: number[]; now: () => number } {
    let nowMs = startMs;
    const sleeps: number[] = [];
    return {
      clock: {
        now: () => nowMs,
        sleep: async (ms) => {
          sleeps.push(ms);
          nowMs += ms;
        },
      },
      sleeps,
      now: () => nowMs,
    };
  }

  it('replays a rotation set oldest first whatever order the files are given in, into the user tenant', async () => {
    const start = NOW_MS - 1000;
    const newest = file('rec', header(start, 2), [ingest(50, 'c', start)]);
    const middle = file('rec.1', header(start, 1), [ingest(20, 'b', start)]);
    const oldest = file('rec.2', header(start, 0), [ingest(10, 'a', start)]);
    const target = fakeTarget();
    const { report, error } = await run([newest, middle, oldest], target);
    expect(error).toBeNull();
    expect(names(target)).toEqual(['a', 'b', 'c']);
    expect(target.sent.map((r) => r.path)).toEqual(['/ingest/v2.0/mine/ingest', '/ingest/v2.0/mine/ingest', '/ingest/v2.0/mine/ingest']);
    expect(report.recordings.map((r) => r.sequence)).toEqual([0, 1, 2]);
    expect(report.totals).toMatchObject({ requests: 3, ok: 3, points: 3 });
    expect(report.complete).toBe(true);
  });

  it('skips requests the recording server refused unless asked, and counts the requests gaps stand for', async () => {
    const start = NOW_MS - 1000;
    const frames = [ingest(1, 'ok', start), ingest(2, 'unauth', start, 401), { kind: 'gap', atMs: 3, dropped: 12 } as const, ingest(4, 'busy', start, 503), ingest(5, 'forbidden', start, 403), ingest(6, 'bad', start, 400)];
    const path = file('rec', header(start), frames);
    const skipping = fakeTarget();
    const first = await run([path], skipping);
    expect(names(skipping)).toEqual(['ok', 'bad']);
    expect(first.report.skipped).toEqual({ refused: 3, notRecordedRoute: 0 });
    expect(first.report.gaps).toEqual({ frames: 1, dropped: 12 });
    // The target answers 200 to the request recorded as 400.
    expect(first.report.totals.statusChanged).toBe(1);
    const including = fakeTarget();
    const second = await run([path], including, { includeRefused: true });
    expect(names(including)).toEqual(['ok', 'unauth', 'busy', 'forbidden', 'bad']);
    expect(second.report.skipped.refused).toBe(0);
  });

  it('shifts each recording by whole days under auto (the same shift for every file of one recording)', async () => {
    const oldStart = NOW_MS - 3 * REPLAY_DAY_MS - 5000;
    const recentStart = NOW_MS - 10_000;
    const old0 = file('old', header(oldStart, 0), [ingest(1, 'old0', oldStart + 1)]);
    const old1 = file('old.1', header(oldStart, 1), [ingest(2, 'old1', oldStart + 2)]);
    const recent = file('recent', header(recentStart), [ingest(1, 'recent', recentStart + 1)]);
    const target = fakeTarget();
    const { report } = await run([recent, old1, old0], target, { timeShift: 'auto' });
    expect(names(target)).toEqual(['old0', 'old1', 'recent']);
    expect(times(target)).toEqual([oldStart + 1 + 3 * REPLAY_DAY_MS, oldStart + 2 + 3 * REPLAY_DAY_MS, recentStart + 1]);
    expect(report.options.timeShiftsMs).toEqual([3 * REPLAY_DAY_MS, 0]);
  });

  it('maps tenants by the explicit pairs first', async () => {
    const start = NOW_MS;
    const other: RecordedExchange = { ...ingest(2, 'x', start), url: '/ingest/v2.0/other/ingest', tenant: 'other' };
    const path = file('rec', header(start), [ingest(1, 'x', start), other]);
    const target = fakeTarget();
    await run([path], target, { tenantPairs: new Map([['rec', 'mapped']]) });
    expect(target.sent.map((r) => r.path)).toEqual(['/ingest/v2.0/mapped/ingest', '/ingest/v2.0/mine/ingest']);
  });

  it('stops at a damaged frame, reporting what was sent before it and the coded error with the file and offset', async () => {
    const start = NOW_MS;
    const bytes = encodeRecording(header(start), [ingest(1, 'a', start), ingest(2, 'b', start), ingest(3, 'c', start)]);
    const path = join(dir, 'cut');
    writeFileSync(path, bytes.subarray(0, bytes.length - 3));
    const target = fakeTarget();
    const { report, error } = await run([path], target);
    expect(names(target)).toEqual(['a', 'b']);
    expect(report.complete).toBe(false);
    expect(report.totals.requests).toBe(2);
    expect(error?.code).toBe('RECORDING_TRUNCATED');
    expect(error?.message).toContain(path);
    expect(error?.message).toMatch(/byte \d+/);
  });

  it('sends only the five recorded routes: a crafted recording cannot make it call another API with the replaying token', async () => {
    const start = NOW_MS;
    const crafted = (atMs: number, method: string, url: string): RecordedExchange => ({ ...ingest(atMs, 'crafted', start), method, url });
    const frames = [
      ingest(1, 'a', start),
      crafted(2, 'POST', '/monitoring/v1.0/rec/entities'),
      crafted(3, 'DELETE', '/v2.0/tokens'),
      crafted(4, 'POST', '/ingest/v2.0/rec/../../v2.0/tokens'),
      crafted(5, 'POST', '//evil.test/ingest/v2.0/rec/ingest'),
      // Refused when recorded and not a recorded route: never sent, even with --include-refused.
      { ...crafted(6, 'DELETE', '/v2.0/tokens'), status: 401 },
      ingest(7, 'b', start),
    ];
    const path = file('rec', header(start), frames);
    for (const includeRefused of [false, true]) {
      const target = fakeTarget();
      const { report } = await run([path], target, { includeRefused });
      expect(target.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /ingest/v2.0/mine/ingest', 'POST /ingest/v2.0/mine/ingest']);
      expect(report.skipped).toEqual({ refused: 0, notRecordedRoute: 5 });
      expect(report.totals.requests).toBe(2);
    }
  });

  it('maps the tenant the URL names, not the tenant the exchange claims', async () => {
    const start = NOW_MS;
    const lying: RecordedExchange = { ...ingest(1, 'x', start), url: '/ingest/v2.0/victim/ingest', tenant: 'rec' };
    const path = file('rec', header(start), [lying]);
    const target = fakeTarget();
    await run([path], target, { tenantPairs: new Map([['rec', 'rec']]) });
    expect(target.sent.map((r) => r.path)).toEqual(['/ingest/v2.0/mine/ingest']);
  });

  it('starts the --speed timeline at the first request, not at the recording start, and announces long waits', async () => {
    const start = NOW_MS - 10 * 3_600_000;
    const hourMs = 3_600_000;
    // The server started an hour before its first request; the files of one recording share one timeline.
    const first = file('rec', header(start, 0), [ingest(hourMs, 'a', start), ingest(hourMs + 2000, 'b', start)]);
    const second = file('rec.1', header(start, 1), [ingest(hourMs + 60_000, 'c', start)]);
    const target = fakeTarget();
    const virtual = virtualClock(NOW_MS);
    const waits: number[] = [];
    const { report } = await run([first, second], target, { mode: { kind: 'speed', speed: 1 }, clock: virtual.clock, onWait: (ms) => waits.push(ms) });
    expect(names(target)).toEqual(['a', 'b', 'c']);
    // 2 s after the first, then 58 s more; never the hour before it.
    expect(virtual.sleeps).toEqual([2000, 58_000]);
    expect(waits).toEqual([58_000]);
    expect(report.lag?.maxMs).toBe(0);
  });

  it('continues the timeline of the next recording right after the last request of the previous one', async () => {
    const oldStart = NOW_MS - 50_000_000;
    const newStart = NOW_MS - 1_000_000;
    const older = file('old', header(oldStart), [ingest(500_000, 'a', oldStart), ingest(503_000, 'b', oldStart)]);
    const newer = file('new', header(newStart), [ingest(700_000, 'c', newStart), ingest(701_000, 'd', newStart)]);
    const target = fakeTarget();
    const virtual = virtualClock(NOW_MS);
    await run([newer, older], target, { mode: { kind: 'speed', speed: 1 }, clock: virtual.clock });
    expect(names(target)).toEqual(['a', 'b', 'c', 'd']);
    expect(virtual.sleeps).toEqual([3000, 1000]);
  });

  it('under auto shifts by the whole days from the last request to now, so a long recording puts nothing in the future', async () => {
    const dayMs = REPLAY_DAY_MS;
    // Started 3 days (and 5 s) ago, its last request came 2 days after the start: 1 day (and 5 s) ago.
    const start = NOW_MS - 3 * dayMs - 5000;
    const frames = [ingest(1000, 'first', start + 1000), ingest(2 * dayMs, 'last', start + 2 * dayMs)];
    const path = file('rec', header(start), frames);
    const target = fakeTarget();
    const { report } = await run([path], target, { timeShift: 'auto' });
    // A shift from the start (3 days) would put the last point 2 days ahead of now.
    expect(report.options.timeShiftsMs).toEqual([dayMs]);
    expect(times(target)).toEqual([start + 1000 + dayMs, start + 2 * dayMs + dayMs]);
    expect(Math.max(...times(target))).toBeLessThanOrEqual(NOW_MS);
    expect(Math.max(...times(target))).toBeGreaterThan(NOW_MS - dayMs);
  });

  it('under auto still reports the damage of a file the first pass stopped at, after sending what came before it', async () => {
    const start = NOW_MS - 2 * REPLAY_DAY_MS - 5000;
    const bytes = encodeRecording(header(start), [ingest(1, 'a', start), ingest(2, 'b', start), ingest(3, 'c', start)]);
    const path = join(dir, 'cut');
    writeFileSync(path, bytes.subarray(0, bytes.length - 3));
    const target = fakeTarget();
    const { report, error } = await run([path], target, { timeShift: 'auto' });
    expect(names(target)).toEqual(['a', 'b']);
    expect(report.options.timeShiftsMs).toEqual([2 * REPLAY_DAY_MS]);
    expect(error?.code).toBe('RECORDING_TRUNCATED');
  });

  it('refuses a file that is not a recording before anything is sent, closing what it opened', async () => {
    const good = file('good', header(NOW_MS), [ingest(1, 'a', NOW_MS)]);
    const bad = join(dir, 'bad');
    writeFileSync(bad, 'not a recording');
    await expect(openRecordings([good, bad])).rejects.toMatchObject({ code: 'RECORDING_NOT_A_RECORDING' });
  });
});

describe('readAhead', () => {
  async function* counted(n: number, pulled: { count: number }, failAt?: number): AsyncGenerator<number> {
    for (let i = 0; i < n; i++) {
      if (i === failAt) throw new Error('source failed');
      pulled.count++;
      yield i;
    }
  }

  it('yields every item in order and never pulls more than `maxItems` ahead of the consumer', async () => {
    const pulled = { count: 0 };
    const seen: number[] = [];
    for await (const item of readAhead(counted(100, pulled), 5, Number.MAX_SAFE_INTEGER, () => 1)) {
      // Let the pump run as far as it may.
      for (let i = 0; i < 20; i++) await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      expect(pulled.count - (seen.length + 1)).toBeLessThanOrEqual(5);
      seen.push(item);
    }
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('holds at most one item once the bytes limit is reached', async () => {
    const pulled = { count: 0 };
    let consumed = 0;
    for await (const _ of readAhead(counted(10, pulled), 100, 10, () => 1000)) {
      await new Promise((resolve) => setImmediate(resolve));
      consumed++;
      expect(pulled.count - consumed).toBeLessThanOrEqual(1);
    }
    expect(consumed).toBe(10);
  });

  it('hands over the items read before a failure, then the failure', async () => {
    const seen: number[] = [];
    const consume = async (): Promise<void> => {
      for await (const item of readAhead(counted(10, { count: 0 }, 4), 3, 1000, () => 1)) seen.push(item);
    };
    await expect(consume()).rejects.toThrow('source failed');
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it('stops pulling and closes the source when the consumer stops early', async () => {
    const state = { pulled: 0, closed: false };
    async function* source(): AsyncGenerator<number> {
      try {
        for (let i = 0; i < 1000; i++) {
          state.pulled++;
          yield i;
        }
      } finally {
        state.closed = true;
      }
    }
    for await (const item of readAhead(source(), 4, 1000, () => 1)) {
      if (item === 2) break;
    }
    expect(state.closed).toBe(true);
    expect(state.pulled).toBeLessThanOrEqual(3 + 4 + 1);
  });
});
