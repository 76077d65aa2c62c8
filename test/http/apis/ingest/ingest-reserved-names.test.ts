// Checks that names reserved in JavaScript objects (__proto__, constructor, ...) in JSON and msgpack ingest bodies are inert unknown keys or plain metric data, never a 500, and never touch Object.prototype.
import { Packr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { startHarness, type Harness } from '../../harness.js';
import { expectIngestError, inject, tokenOf, type InjectOptions } from '../../inject.js';
import { guardPrototypes } from '../../prototype-guard.js';

const MINUTE_MS = 60_000;
const START_MS = Date.UTC(2026, 0, 1, 12);
const T_MS = START_MS - MINUTE_MS;
const INGEST = '/ingest/v2.0/t1/ingest';
const RESERVED = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'] as const;
const MSGPACK = 'application/x-msgpack';
/** msgpackr with plain-object maps, so a decoded own `__proto__` key is packed as a key (as another client's encoder would send it). */
const packr = new Packr();

let h: Harness;
let alice: string;

/** A metric as JSON text with raw `extra` members (such as a literal "__proto__" key) first. */
function metricText(name: string, extra: string): string {
  return `{${extra}${extra === '' ? '' : ','}"metricName":${JSON.stringify(name)},"metricValue":1,"collectionTime":${T_MS}}`;
}

/** The same batch as JSON text and as msgpack (the JSON parsed first, so reserved keys are own keys). */
function bothForms(batchText: string): InjectOptions[] {
  return [
    { body: batchText, type: 'application/json' },
    { body: packr.pack(JSON.parse(batchText)), type: MSGPACK },
  ];
}

const post = (options: InjectOptions, url = INGEST) => inject(h, 'POST', url, { token: alice, ...options });

/** The view of one metric around T_MS. */
async function view(name: string): Promise<Record<string, any>> {
  const res = await inject(h, 'GET', `/metrics/v2.0/t1/views/${encodeURIComponent(name)}?from=${T_MS - MINUTE_MS}&to=${T_MS + MINUTE_MS}&resolution=FULL`, { token: alice });
  expect(res.status, res.text).toBe(200);
  return res.json as Record<string, any>;
}

async function searchAll(): Promise<string[]> {
  const res = await inject(h, 'GET', '/metrics/v2.0/t1/metrics/search?query=*', { token: alice });
  expect(res.status, res.text).toBe(200);
  return (res.json as { metric: string }[]).map((m) => m.metric);
}

beforeAll(async () => {
  h = await startHarness({ clock: new ManualClock(START_MS) });
  alice = await tokenOf(h, 'alice');
});
afterAll(async () => h.close());
guardPrototypes();

describe('reserved keys in a metric (JSON and msgpack)', () => {
  it.each([
    ['__proto__ holding an object', '"__proto__":{"polluted":"yes","metricName":"hijacked"}'],
    ['constructor.prototype', '"constructor":{"prototype":{"polluted":"yes"}}'],
    ['hasOwnProperty and toString', '"hasOwnProperty":1,"toString":"x"'],
  ])('%s is an unknown key, ignored as Blueflood ignores unknown keys: the metric is written as sent', async (label, extra) => {
    const name = `rk.${label.replace(/\W+/g, '_')}`;
    for (const options of bothForms(`[${metricText(name, extra)}]`)) {
      const res = await post(options);
      expect(res.status, res.text).toBe(200);
    }
    expect(await searchAll()).toContain(name);
    expect(await searchAll()).not.toContain('hijacked');
    expect((await view(name))['values']).toEqual([{ timestamp: T_MS, numPoints: 1, average: 1 }]);
  });

  it('a metricValue object holding __proto__ is refused (400 INGEST_POINTS_REJECTED) and nothing is written', async () => {
    for (const options of bothForms(`[{"metricName":"rk.value","metricValue":{"__proto__":1},"collectionTime":${T_MS}}]`)) {
      const errors = expectIngestError(await post(options), 400, 'INGEST_POINTS_REJECTED');
      expect(errors[0]).toMatchObject({ index: 0, source: 'metricValue', code: 'INGEST_VALUE_INVALID' });
    }
    expect(await searchAll()).not.toContain('rk.value');
  });

  it('a body that is an object holding __proto__ is 400 HTTP_BODY_INVALID', async () => {
    for (const options of bothForms('{"__proto__":[{"metricName":"rk.body","metricValue":1,"collectionTime":1}]}')) {
      expectIngestError(await post(options), 400, 'HTTP_BODY_INVALID');
    }
    expect(await searchAll()).not.toContain('rk.body');
  });
});

describe('reserved names as metric data', () => {
  it.each(RESERVED)('%s as a metric name, unit and string value is written and reads back exactly', async (name) => {
    for (const [i, options] of bothForms(`[{"metricName":${JSON.stringify(name)},"metricValue":${JSON.stringify(name)},"unit":${JSON.stringify(name)},"collectionTime":${T_MS}}]`).entries()) {
      const res = await post(options);
      expect(res.status, `${i}: ${res.text}`).toBe(200);
    }
    const got = await view(name);
    expect(got['unit']).toBe(name);
    expect(got['values']).toEqual([{ timestamp: T_MS, numPoints: 1, average: null, value: name }]);
    expect(await searchAll()).toContain(name);
  });

  it.each(RESERVED)('a multi-tenant metric for tenant %s is refused per metric (not this token\'s tenant)', async (name) => {
    const batch = `[{"tenantId":${JSON.stringify(name)},"metricName":"rk.multi","metricValue":1,"collectionTime":${T_MS}}]`;
    for (const options of bothForms(batch)) {
      const errors = expectIngestError(await post(options, `${INGEST}/multi`), 400, 'INGEST_POINTS_REJECTED');
      expect(errors[0]).toMatchObject({ index: 0, tenantId: name, source: 'tenantId' });
    }
    expect(await searchAll()).not.toContain('rk.multi');
  });
});
