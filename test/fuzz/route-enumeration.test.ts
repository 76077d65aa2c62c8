// Checks that the fuzz suite enumerates the server's routes from the server itself, and finds every known API, so it can never fuzz nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { openSuite } from './fuzz-suite.js';
import { API_PREFIXES, apiOfPath, operationName, routeTable } from './route-catalog.js';

const suite = await openSuite();
afterAll(() => suite.world.close());

describe('fuzz route enumeration', () => {
  const names = new Set(suite.operations.map(operationName));

  it('finds the known operations of every API', () => {
    for (const known of [
      'POST /v2.0/tokens',
      'GET /v2.0/tokens/:tokenId',
      'POST /ingest/v2.0/:tenant/ingest',
      'POST /ingest/v2.0/:tenant/ingest/multi',
      'GET /metrics/v2.0/:tenant/views/:metricName',
      'POST /metrics/v2.0/:tenant/views',
      'GET /metrics/v2.0/:tenant/metrics/search',
      'POST /monitoring/v1.0/:tenant/entities',
      'PUT /monitoring/v1.0/:tenant/entities/:entityId/alarms/:alarmId',
      'GET /monitoring/v1.0/:tenant/changelogs/alarms',
      'POST /feeds/:tenant/monitoring/alerts/events',
      'GET /dns/v1.0/:tenant/domains/:domainId/records',
      'GET /healthz',
      'GET /metrics',
      'GET /openapi.json',
    ]) {
      expect(names, known).toContain(known);
    }
    const apis = new Set(suite.operations.map((op) => op.api));
    expect([...apis].sort()).toEqual([...Object.keys(API_PREFIXES), 'root'].sort());
  });

  it('covers every operation the OpenAPI document lists, and every pattern of the router', () => {
    const documented = suite.operations.filter((op) => op.documented);
    expect(documented.length).toBeGreaterThanOrEqual(60);
    for (const [path, operations] of Object.entries(suite.doc.paths)) {
      for (const method of Object.keys(operations)) {
        expect(names, `${method} ${path}`).toContain(`${method.toUpperCase()} ${path.replace(/\{([A-Za-z]+)\}/g, ':$1')}`);
      }
    }
    const patterns = new Set(suite.operations.map((op) => op.pattern));
    for (const pattern of routeTable(suite.world.app).keys()) expect(patterns).toContain(pattern);
    // The 405 answers of every resource are fuzzed too.
    expect(suite.operations.filter((op) => !op.documented).length).toBeGreaterThan(100);
  });

  it('tells each URL its API by the longest prefix, as the server does', () => {
    expect(apiOfPath('/metrics')).toBe('root');
    expect(apiOfPath('/metrics/v2.0/t1/views')).toBe('metrics');
    expect(apiOfPath('/v2.0')).toBe('identity');
    expect(apiOfPath('/v2.0x')).toBe('root');
    expect(apiOfPath('/ingest/v2.0/t1/ingest')).toBe('ingest');
    expect(apiOfPath('/feeds')).toBe('feeds');
  });
});
