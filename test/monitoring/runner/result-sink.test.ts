// Tests of ResultSink over a real engine store: series names and values, the run points (sparse for remote checks), declared types (operation 5), batching, engine failures counted, the alarm observer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { METRIC_NAME_LENGTH_MAX, STRING_VALUE_LENGTH_MAX } from '../../../src/core/limits.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { StoredDoc } from '../../../src/monitoring/doc-store.js';
import type { MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import { ResultSink, type ResultObserver } from '../../../src/monitoring/runner/result-sink.js';
import { openStore } from '../../../src/store.js';
import type { Store } from '../../../src/store-types.js';
import { collectingLogger, httpCheckBody, monitoringWithEntity } from './runner-fixtures.js';

let dir: string;
let engine: Store;
let monitoring: MonitoringService;
let entityId: string;
let check: StoredDoc<CheckDoc>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'strata-sink-'));
  engine = await openStore({ dir, workers: 0, background: false });
  ({ monitoring, entityId } = monitoringWithEntity(systemClock));
  const id = monitoring.entities.createCheck('t1', entityId, httpCheckBody('http://127.0.0.1:9/'));
  check = monitoring.entities.check('t1', entityId, id);
});

afterEach(async () => {
  await engine.close().catch(() => undefined);
  monitoring.close();
  rmSync(dir, { recursive: true, force: true });
});

function result(zone: string, timestampMs: number, code: string, durationMs: number): CheckResult {
  return {
    monitoringZoneId: zone,
    timestampMs,
    available: true,
    status: `code=${code}`,
    metrics: {
      code: { type: 's', data: code, unit: 'unknown' },
      duration: { type: 'I', data: durationMs, unit: 'milliseconds' },
    },
  };
}

function sink(extra: Partial<ConstructorParameters<typeof ResultSink>[0]> = {}) {
  const observed: CheckResult[] = [];
  const alarms: ResultObserver = { observe: (_tenant, _check, r) => void observed.push(r) };
  const logger = collectingLogger();
  return { observed, logger, sink: new ResultSink({ engine, monitoring, alarms, logger, ...extra }) };
}

describe('ResultSink', () => {
  it('writes each metric as <entity>.<check>.<zone>.<metric> at the run start, numbers and strings, with units; an available remote run with metrics writes no run point', async () => {
    const { sink: s, observed } = sink();
    const t = Date.now() - 60_000;
    s.accept('t1', check, result('mzdfw', t, '200', 12));
    s.accept('t1', check, result('mzord', t + 5, '503', 40));
    expect(observed.map((r) => r.monitoringZoneId)).toEqual(['mzdfw', 'mzord']);
    // Two metrics per result: their points say the run was available.
    expect(s.stats().pending).toBe(4);
    await s.flush();
    expect(s.stats()).toMatchObject({ pointsWritten: 4, pointsRejected: 0, pointsDropped: 0, writeFailures: 0, pending: 0 });
    const prefix = `${entityId}.${check.id}`;
    const duration = await engine.query({ tenant: 't1', metric: `${prefix}.mzdfw.duration`, from: t - 1, to: t + 1000, resolution: 'FULL' });
    expect(duration.values).toEqual([expect.objectContaining({ timestamp: t, average: 12 })]);
    expect(duration.unit).toBe('milliseconds');
    const code = await engine.query({ tenant: 't1', metric: `${prefix}.mzord.code`, from: t - 1, to: t + 1000, resolution: 'FULL' });
    expect(code.values).toEqual([expect.objectContaining({ timestamp: t + 5, value: '503' })]);
    // No run series: nothing but the metrics was written.
    expect((await engine.listMetrics('t1')).metrics.map((m) => m.name)).toEqual([`${prefix}.mzdfw.code`, `${prefix}.mzdfw.duration`, `${prefix}.mzord.code`, `${prefix}.mzord.duration`]);
    // Another tenant sees none of it.
    expect((await engine.listMetrics('t2')).metrics).toEqual([]);
  });

  it('writes an agent check\'s metrics under their bare names, whichever zone endpoint carried them', async () => {
    const { sink: s, observed } = sink();
    const agentCheckId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.load_average' });
    const agentCheck = monitoring.entities.check('t1', entityId, agentCheckId);
    const t = Date.now() - 60_000;
    const load = (zone: string, at: number, value: number): CheckResult => ({
      monitoringZoneId: zone,
      timestampMs: at,
      available: true,
      status: 'ok',
      metrics: { '1m': { type: 'n', data: value, unit: 'unknown' } },
    });
    s.accept('t1', agentCheck, load('mzdfw', t, 0.5));
    s.accept('t1', agentCheck, load('mzord', t + 30_000, 0.75));
    expect(observed).toHaveLength(2);
    await s.flush();
    const names = (await engine.listMetrics('t1')).metrics.map((m) => m.name);
    expect(names).toEqual([`${entityId}.${agentCheckId}.1m`, `${entityId}.${agentCheckId}.@run`]);
    // The series has no zone: the run point names the zone that carried the result.
    const run = await engine.query({ tenant: 't1', metric: `${entityId}.${agentCheckId}.@run`, from: t - 1, to: t + 60_000, resolution: 'FULL' });
    expect(run.values.map((v) => v.value)).toEqual(['up@mzdfw', 'up@mzord']);
    const points = await engine.query({ tenant: 't1', metric: `${entityId}.${agentCheckId}.1m`, from: t - 1, to: t + 60_000, resolution: 'FULL' });
    expect(points.values.map((v) => [v.timestamp, v.average])).toEqual([
      [t, 0.5],
      [t + 30_000, 0.75],
    ]);
  });

  it('declares each metric type once, so operation 5 lists the zone metrics with their type and unit', async () => {
    const { sink: s } = sink();
    const t = Date.now() - 60_000;
    s.accept('t1', check, result('mzdfw', t, '200', 12));
    s.accept('t1', check, result('mzdfw', t + 30_000, '200', 14));
    await s.flush();
    const page = await monitoring.checkMetrics(engine, 't1', entityId, check.id, { limit: 100 });
    expect(page.values).toEqual([
      { name: 'mzdfw.code', unit: 'unknown', type: 's' },
      { name: 'mzdfw.duration', unit: 'milliseconds', type: 'I' },
    ]);
  });

  it('writes at once when a batch fills, and on its timer otherwise', async () => {
    // Each result is three points: two metrics and, unavailable, its run point.
    const { sink: s } = sink({ batchPoints: 6, flushMs: 50 });
    const t = Date.now() - 60_000;
    const down = (zone: string): CheckResult => ({ ...result(zone, t, '500', 1), available: false, status: 'code=500' });
    s.accept('t1', check, down('mzdfw'));
    s.accept('t1', check, down('mziad'));
    // The sixth point started a write without waiting for the timer.
    expect(s.stats().pending).toBe(0);
    s.accept('t1', check, down('mzord'));
    expect(s.stats().pending).toBe(3);
    // Nothing else flushes the last three points: only the 50 ms timer can write them. Wait for
    // that real SQLite write with a deadline rather than a fixed sleep a loaded machine outlasts.
    await vi.waitFor(() => expect(s.stats()).toMatchObject({ pending: 0, pointsWritten: 9 }), { timeout: 10_000, interval: 10 });
  });

  it('takes a result whole or not at all: one whose points do not all fit the pending bound is refused, counted, and not observed', async () => {
    // An unavailable result of two metrics is three points with its run point; an available one of one metric, one.
    const { sink: s, observed } = sink({ pendingPointsMax: 5, batchPoints: 100, flushMs: 10_000 });
    const t = Date.now() - 60_000;
    const down = (at: number): CheckResult => ({ ...result('mzdfw', at, '500', 1), available: false, status: 'code=500' });
    expect(s.accept('t1', check, down(t))).toBe(true);
    expect(s.accept('t1', check, down(t + 1))).toBe(false);
    expect(s.stats()).toMatchObject({ pending: 3, pointsDropped: 3 });
    expect(observed.map((r) => r.timestampMs)).toEqual([t]);
    // Results that fit what is left are taken: two metrics, then one.
    expect(s.accept('t1', check, result('mzdfw', t + 2, '200', 1))).toBe(true);
    const single: CheckResult = { ...result('mzdfw', t + 3, '200', 1), metrics: { duration: { type: 'I', data: 7, unit: 'milliseconds' } } };
    expect(s.accept('t1', check, single)).toBe(false);
    expect(s.stats()).toMatchObject({ pending: 5, pointsDropped: 4 });
    await s.flush();
    expect(s.stats()).toMatchObject({ pending: 0, pointsWritten: 5, pointsDropped: 4 });
    const duration = await engine.query({ tenant: 't1', metric: `${entityId}.${check.id}.mzdfw.duration`, from: t - 1, to: t + 1000, resolution: 'FULL' });
    // The refused results (t + 1, t + 3) left no point, not even a run point.
    expect(duration.values.map((v) => v.timestamp)).toEqual([t, t + 2]);
    const run = await engine.query({ tenant: 't1', metric: `${entityId}.${check.id}.mzdfw.@run`, from: t - 1, to: t + 1000, resolution: 'FULL' });
    expect(run.values.map((v) => [v.timestamp, v.value])).toEqual([[t, 'down:code=500']]);
    // Once written, the room is back.
    expect(s.accept('t1', check, single)).toBe(true);
  });

  it('logs and counts a failing engine write, never throwing; points the engine refuses are counted', async () => {
    const { sink: s, logger } = sink();
    s.accept('t1', check, { ...result('mzdfw', 1_000, '500', 1), available: false, status: 'code=500' });
    await s.flush();
    // A timestamp far older than the FULL retention is refused point by point (the run point too).
    expect(s.stats()).toMatchObject({ pointsRejected: 3, pointsWritten: 0 });
    await engine.close();
    s.accept('t1', check, result('mzdfw', Date.now(), '200', 1));
    await expect(s.flush()).resolves.toBeUndefined();
    expect(s.stats()).toMatchObject({ writeFailures: 1, pointsDropped: 2, pending: 0 });
    expect(logger.lines.map((line) => line.level)).toEqual(['warn', 'error']);
  });

  it('keeps going when the alarm observer throws (logged), and skips type declarations of a deleted check', async () => {
    const logger = collectingLogger();
    const s = new ResultSink({ engine, monitoring, alarms: { observe: () => { throw new Error('bug'); } }, logger });
    monitoring.entities.deleteCheck('t1', entityId, check.id);
    s.accept('t1', check, result('mzdfw', Date.now() - 1_000, '200', 1));
    await s.flush();
    expect(s.stats().pointsWritten).toBe(2);
    expect(logger.lines).toEqual([expect.objectContaining({ level: 'error', msg: 'alarm evaluation failed for a check result' })]);
  });

  it('writes an unavailable run as down:<status>, and stores no metric named like a run series (the alarms still see it)', async () => {
    const { sink: s, observed } = sink();
    const t = Date.now() - 60_000;
    s.accept('t1', check, { monitoringZoneId: 'mzdfw', timestampMs: t, available: false, status: 'connection refused: a:b', metrics: {} });
    const agentCheckId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.load_average' });
    const agentCheck = monitoring.entities.check('t1', entityId, agentCheckId);
    const posted: CheckResult = {
      monitoringZoneId: 'mzord',
      timestampMs: t,
      available: false,
      status: 'x'.repeat(5_000),
      metrics: { '@run': { type: 's', data: 'up', unit: 'unknown' }, '1m': { type: 'n', data: 1, unit: 'unknown' } },
    };
    s.accept('t1', agentCheck, posted);
    expect(observed.map((r) => Object.keys(r.metrics).length)).toEqual([0, 2]);
    await s.flush();
    const read = async (metric: string) => (await engine.query({ tenant: 't1', metric, from: t - 1, to: t + 1, resolution: 'FULL' })).values.map((v) => v.value);
    expect(await read(`${entityId}.${check.id}.mzdfw.@run`)).toEqual(['down:connection refused: a:b']);
    const [agentRun] = await read(`${entityId}.${agentCheckId}.@run`);
    expect(agentRun).toMatch(/^down@mzord:x+$/);
    expect((agentRun as string).length).toBeLessThanOrEqual(1024);
    expect((await engine.listMetrics('t1', { glob: `${entityId}.${agentCheckId}.*` })).metrics.map((m) => m.name)).toEqual([`${entityId}.${agentCheckId}.1m`, `${entityId}.${agentCheckId}.@run`]);
    expect(s.stats()).toMatchObject({ pointsWritten: 3, pointsRejected: 0 });
  });

  it('writes a remote run point only for an unavailable run (beside its metrics) or an available one with no metrics; an agent run always', async () => {
    const { sink: s, observed } = sink();
    const t = Date.now() - 60_000;
    const prefix = `${entityId}.${check.id}`;
    const up = (zone: string, at: number, metrics: CheckResult['metrics']): CheckResult => ({ monitoringZoneId: zone, timestampMs: at, available: true, status: 'ok', metrics });
    s.accept('t1', check, result('mzdfw', t, '200', 12));
    s.accept('t1', check, up('mzdfw', t + 1, {}));
    s.accept('t1', check, { monitoringZoneId: 'mzdfw', timestampMs: t + 2, available: false, status: 'connection refused', metrics: { duration: { type: 'I', data: 3, unit: 'milliseconds' } } });
    const agentCheckId = monitoring.entities.createCheck('t1', entityId, { type: 'agent.load_average' });
    const agentCheck = monitoring.entities.check('t1', entityId, agentCheckId);
    s.accept('t1', agentCheck, up('mzord', t, { '1m': { type: 'n', data: 0.5, unit: 'unknown' } }));
    expect(observed).toHaveLength(4);
    await s.flush();
    const read = async (metric: string) => (await engine.query({ tenant: 't1', metric, from: t - 1, to: t + 1000, resolution: 'FULL' })).values.map((v) => [v.timestamp - t, v.value ?? v.average]);
    expect(await read(`${prefix}.mzdfw.@run`)).toEqual([
      [1, 'up'],
      [2, 'down:connection refused'],
    ]);
    expect(await read(`${prefix}.mzdfw.duration`)).toEqual([
      [0, 12],
      [2, 3],
    ]);
    expect(await read(`${prefix}.mzdfw.code`)).toEqual([[0, '200']]);
    expect(await read(`${entityId}.${agentCheckId}.@run`)).toEqual([[0, 'up@mzord']]);
    // Two metrics at t, the run point at t + 1, a metric and the run point at t + 2, the agent's metric and run point.
    expect(s.stats()).toMatchObject({ pointsRejected: 0, pointsWritten: 7 });
  });

  it('two results of one zone at the same ms: the later one writes its run point, so it overwrites the earlier one\'s as the engine keeps the later write of each series', async () => {
    const { sink: s } = sink();
    const t = Date.now() - 60_000;
    const prefix = `${entityId}.${check.id}`;
    const down = (zone: string, at: number): CheckResult => ({ monitoringZoneId: zone, timestampMs: at, available: false, status: 'refused', metrics: {} });
    s.accept('t1', check, down('mzdfw', t));
    s.accept('t1', check, result('mzdfw', t, '200', 5));
    // Another zone's run point at that ms is another series: mziad's available run needs none.
    s.accept('t1', check, down('mzord', t));
    s.accept('t1', check, result('mziad', t, '200', 6));
    // The zone's next result at another ms forgets it: a later ms with metrics writes no run point.
    s.accept('t1', check, result('mzdfw', t + 1, '200', 7));
    s.accept('t1', check, result('mzdfw', t + 1, '200', 8));
    await s.flush();
    const read = async (metric: string) => (await engine.query({ tenant: 't1', metric, from: t - 1, to: t + 1000, resolution: 'FULL' })).values.map((v) => [v.timestamp - t, v.value ?? v.average]);
    expect(await read(`${prefix}.mzdfw.@run`)).toEqual([[0, 'up']]);
    expect(await read(`${prefix}.mzdfw.duration`)).toEqual([
      [0, 5],
      [1, 8],
    ]);
    expect(await read(`${prefix}.mzord.@run`)).toEqual([[0, 'down:refused']]);
    expect(await read(`${prefix}.mziad.@run`)).toEqual([]);
  });
});
