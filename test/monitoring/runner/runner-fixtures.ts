// Owns the fixtures of the check runner tests: a loopback HTTP target that can go down, a monitoring service with checks, probes for the registry, a collecting logger.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../src/core/clock.js';
import type { CheckResult } from '../../../src/monitoring/check-result.js';
import type { CheckDoc } from '../../../src/monitoring/check-rules.js';
import type { StoredDoc } from '../../../src/monitoring/doc-store.js';
import { openMonitoring, type MonitoringService } from '../../../src/monitoring/monitoring-service.js';
import type { Probe } from '../../../src/monitoring/probes/probe-types.js';
import type { CheckCreate } from '../../../src/monitoring/schemas/check-schema.js';

/** A loopback HTTP server answering 200 `ok` (or `status` while set), counting requests; close() ends it. */
export interface LoopbackTarget {
  readonly port: number;
  readonly url: string;
  requests: number;
  /** Status answered from now on. */
  status: number;
  close(): Promise<void>;
}

/** Starts a loopback HTTP target on a free port. */
export async function startTarget(): Promise<LoopbackTarget> {
  const server: Server = createServer((request, response) => {
    target.requests++;
    request.resume();
    response.writeHead(target.status, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const target: LoopbackTarget = {
    port,
    url: `http://127.0.0.1:${port}/`,
    requests: 0,
    status: 200,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return target;
}

/** One log line a test logger kept. */
export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly obj: object;
  readonly msg: string;
}

/** A logger keeping its lines. */
export function collectingLogger(): { lines: LogLine[]; info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (obj, msg) => void lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => void lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => void lines.push({ level: 'error', obj, msg }),
  };
}

/** Account limits above what the runner tests create in one tenant (thousands of checks). */
const RUNNER_TEST_LIMITS = { entities: 100_000, checks: 100_000, alarms: 100_000 };

/** An in-memory monitoring service with one entity (`web` = 127.0.0.1) of tenant t1. */
export function monitoringWithEntity(clock: Clock): { monitoring: MonitoringService; entityId: string } {
  const monitoring = openMonitoring({ dir: undefined, clock, limits: RUNNER_TEST_LIMITS });
  const entityId = monitoring.entities.createEntity('t1', { label: 'web-1', ip_addresses: { web: '127.0.0.1' } });
  return { monitoring, entityId };
}

/** A remote.http check body against `url` polling the given zones by alias `web`. */
export function httpCheckBody(url: string, extra: Partial<CheckCreate> = {}): CheckCreate {
  return {
    type: 'remote.http',
    label: 'site',
    details: { url, method: 'GET' },
    monitoring_zones_poll: ['mzdfw', 'mziad', 'mzord'],
    target_alias: 'web',
    period: 30,
    timeout: 5,
    ...extra,
  };
}

/** A probe that answers at once with a `code` metric, recording the zones it was asked from. */
export function instantProbe(calls: string[] = []): Probe {
  return async (context) => {
    calls.push(context.target.address);
    return { available: true, status: 'ok', metrics: { code: { type: 's', data: '200', unit: 'unknown' }, duration: { type: 'I', data: 1, unit: 'milliseconds' } } };
  };
}

/** A probe whose runs wait until released (release() settles every waiting run); counts runs. */
export function gatedProbe(): { probe: Probe; started: number; release(): void } {
  const waiting: (() => void)[] = [];
  const gate = {
    started: 0,
    probe: (async () => {
      gate.started++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return { available: true, status: 'ok', metrics: {} };
    }) as Probe,
    release() {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
  return gate;
}

/** A sink that keeps every accepted result. */
export function collectingSink(): { results: { tenant: string; check: StoredDoc<CheckDoc>; result: CheckResult }[]; accept(tenant: string, check: StoredDoc<CheckDoc>, result: CheckResult): void } {
  const results: { tenant: string; check: StoredDoc<CheckDoc>; result: CheckResult }[] = [];
  return { results, accept: (tenant, check, result) => void results.push({ tenant, check, result }) };
}
