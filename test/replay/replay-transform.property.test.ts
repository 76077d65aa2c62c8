// Property tests of replay's request transform: route names, tenant mapping, time shift of URLs and ingest bodies, points counts.
import fc from 'fast-check';
import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import type { RecordedExchange } from '../../src/recording/recording-types.js';
import {
  REPLAY_DAY_MS,
  autoShiftMs,
  createTransformer,
  msgpackArrayLength,
  rewriteTenant,
  routeOf,
  shiftQuery,
  type TenantMap,
} from '../../src/replay/replay-transform.js';

const tenantArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/);
const metricArb = fc.stringMatching(/^[a-z][a-z0-9.]{0,15}$/);
const timeArb = fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 });
const shiftArb = fc.integer({ min: -30, max: 30 }).map((days) => days * REPLAY_DAY_MS);

const pointArb = fc.record({
  metricName: metricArb,
  metricValue: fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 8 })),
  collectionTime: timeArb,
  ttlInSeconds: fc.integer({ min: 1, max: 2_000_000 }),
  unit: fc.constantFrom('percent', 'bytes', 'ms'),
});

function exchange(fields: Partial<RecordedExchange> & Pick<RecordedExchange, 'url' | 'method'>): RecordedExchange {
  return { kind: 'exchange', atMs: 0, tenant: '100000', contentType: null, body: null, status: 200, durationMs: 1, ...fields };
}

function tenants(pairs: Record<string, string>, fallback: string): TenantMap {
  return { pairs: new Map(Object.entries(pairs)), fallback };
}

describe('routeOf', () => {
  it('names the five recorded routes for any tenant and metric', () => {
    fc.assert(
      fc.property(tenantArb, metricArb, (tenant, metric) => {
        expect(routeOf('POST', `/ingest/v2.0/${tenant}/ingest`)).toBe('ingest');
        expect(routeOf('POST', `/ingest/v2.0/${tenant}/ingest/multi`)).toBe('ingest/multi');
        expect(routeOf('GET', `/metrics/v2.0/${tenant}/views/${metric}?from=1&to=2&points=10`)).toBe('views (GET)');
        expect(routeOf('POST', `/metrics/v2.0/${tenant}/views?from=1&to=2&resolution=FULL`)).toBe('views (POST)');
        expect(routeOf('GET', `/metrics/v2.0/${tenant}/metrics/search?query=${metric}*`)).toBe('search');
      }),
    );
  });

  it('calls everything else "other"', () => {
    for (const [method, url] of [
      ['GET', '/ingest/v2.0/t1/ingest'],
      ['POST', '/ingest/v2.0/t1/ingest/other'],
      ['POST', '/metrics/v2.0/t1/views/cpu'],
      ['GET', '/metrics/v2.0/t1/views'],
      ['GET', '/v2.0/tokens'],
      ['GET', '/metrics/v2.0//views/cpu'],
      ['GET', '/metrics/v1.0/t1/views/cpu'],
    ] as const) {
      expect(routeOf(method, url), `${method} ${url}`).toBe('other');
    }
  });
});

describe('tenant and time rewriting of URLs', () => {
  it('rewrites only the tenant segment, and mapping back restores the URL', () => {
    fc.assert(
      fc.property(tenantArb, tenantArb, metricArb, fc.string({ maxLength: 20 }), (from, to, metric, query) => {
        const url = `/metrics/v2.0/${from}/views/${metric}?q=${encodeURIComponent(query)}`;
        const rewritten = rewriteTenant(url, from, to);
        expect(rewritten).toBe(`/metrics/v2.0/${to}/views/${metric}?q=${encodeURIComponent(query)}`);
        expect(rewriteTenant(rewritten, to, from)).toBe(url);
      }),
    );
  });

  it('leaves a URL alone when its tenant segment is not the recorded tenant', () => {
    expect(rewriteTenant('/metrics/v2.0/other/views/cpu', 't1', 't2')).toBe('/metrics/v2.0/other/views/cpu');
    expect(rewriteTenant('/v2.0/tokens', 't1', 't2')).toBe('/v2.0/tokens');
  });

  it('shifts from and to by the shift, is undone by the opposite shift, and touches no other parameter', () => {
    fc.assert(
      fc.property(timeArb, timeArb, shiftArb, fc.integer({ min: 1, max: 1440 }), (a, b, shift, points) => {
        const url = `/metrics/v2.0/t/views/cpu?from=${a}&points=${points}&to=${b}&select=average`;
        const shifted = shiftQuery(url, shift);
        const params = new URLSearchParams(shifted.split('?')[1]);
        expect(Number(params.get('from'))).toBe(a + shift);
        expect(Number(params.get('to'))).toBe(b + shift);
        expect(params.get('points')).toBe(String(points));
        expect(params.get('select')).toBe('average');
        expect(shiftQuery(shifted, -shift)).toBe(url);
        expect(shiftQuery(url, 0)).toBe(url);
      }),
    );
  });

  it('leaves a from or to that is not an integer as recorded (the target refuses it as the recorder did)', () => {
    expect(shiftQuery('/x?from=abc&to=1.5', REPLAY_DAY_MS)).toBe('/x?from=abc&to=1.5');
  });
});

describe('--time-shift auto', () => {
  it('is whole days, never negative, and brings the start into the last day', () => {
    fc.assert(
      fc.property(timeArb, fc.integer({ min: 0, max: 400 * REPLAY_DAY_MS }), (start, age) => {
        const now = start + age;
        const shift = autoShiftMs(start, now);
        expect(shift % REPLAY_DAY_MS).toBe(0);
        expect(shift).toBeGreaterThanOrEqual(0);
        expect(start + shift).toBeLessThanOrEqual(now);
        expect(start + shift).toBeGreaterThan(now - REPLAY_DAY_MS);
      }),
    );
  });

  it('does not shift a recording that started after now', () => {
    fc.assert(fc.property(timeArb, fc.integer({ min: 1, max: 10 * REPLAY_DAY_MS }), (now, ahead) => {
      expect(autoShiftMs(now + ahead, now)).toBe(0);
    }));
  });
});

describe('ingest bodies', () => {
  const formats = [
    { type: 'application/json', encode: (v: unknown) => Buffer.from(JSON.stringify(v)), decode: (b: Uint8Array) => JSON.parse(Buffer.from(b).toString('utf8')) },
    { type: 'application/x-msgpack', encode: (v: unknown) => pack(v), decode: (b: Uint8Array) => unpack(b) },
  ] as const;

  it('sends the recorded bytes untouched without a shift, and counts the points', () => {
    fc.assert(
      fc.property(fc.array(pointArb, { maxLength: 40 }), fc.constantFrom(...formats), tenantArb, (points, format, target) => {
        const body = format.encode(points);
        const t = createTransformer({ tenants: tenants({}, target), shiftMs: 0 });
        const request = t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: format.type, body }));
        expect(request.body).toBe(body);
        expect(request.points).toBe(points.length);
        expect(request.path).toBe(`/ingest/v2.0/${target}/ingest`);
        expect(request.route).toBe('ingest');
      }),
    );
  });

  it('adds the shift to every collectionTime, in the recorded format, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.array(pointArb, { minLength: 1, maxLength: 40 }), fc.constantFrom(...formats), shiftArb.filter((s) => s !== 0), (points, format, shift) => {
        const body = format.encode(points);
        const t = createTransformer({ tenants: tenants({}, '100000'), shiftMs: shift });
        const request = t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: format.type, body }));
        expect(request.points).toBe(points.length);
        expect(request.contentType).toBe(format.type);
        // Compared with the recorded body as decoded: JSON itself cannot carry -0, for example.
        const recorded = format.decode(body) as Array<{ collectionTime: number }>;
        expect(format.decode(request.body as Uint8Array)).toEqual(recorded.map((p) => ({ ...p, collectionTime: p.collectionTime + shift })));
      }),
    );
  });

  it('maps each tenantId of a multi-tenant body and the URL tenant', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(pointArb, fc.constantFrom('a', 'b', 'c')), { minLength: 1, maxLength: 30 }), fc.constantFrom(...formats), (rows, format) => {
        const points = rows.map(([p, tenant]) => ({ ...p, tenantId: tenant }));
        const map = tenants({ a: 'x', b: 'y' }, 'fallback');
        const t = createTransformer({ tenants: map, shiftMs: 0 });
        const request = t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/a/ingest/multi', tenant: 'a', contentType: format.type, body: format.encode(points) }));
        const expected = { a: 'x', b: 'y', c: 'fallback' } as const;
        expect(request.path).toBe('/ingest/v2.0/x/ingest/multi');
        const recorded = format.decode(format.encode(points)) as Array<{ tenantId: 'a' | 'b' | 'c' }>;
        expect(format.decode(request.body as Uint8Array)).toEqual(recorded.map((p) => ({ ...p, tenantId: expected[p.tenantId] })));
      }),
    );
  });

  it('sends a body that does not decode as recorded, counting no points', () => {
    const body = Buffer.from('[1,2');
    const t = createTransformer({ tenants: tenants({}, 't'), shiftMs: REPLAY_DAY_MS });
    const request = t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: 'application/json', body }));
    expect(request.body).toBe(body);
    expect(request.points).toBe(0);
  });

  it('reads a msgpack array length from its header for every array size class', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 70_000 }), (n) => {
      expect(msgpackArrayLength(pack(new Array(n).fill(0)))).toBe(n);
    }), { numRuns: 30 });
    expect(msgpackArrayLength(pack({ a: 1 }))).toBeNull();
    expect(msgpackArrayLength(new Uint8Array())).toBeNull();
  });
});

describe('queries', () => {
  it('shifts views from/to and maps the tenant; leaves a search query alone', () => {
    fc.assert(
      fc.property(timeArb, shiftArb, metricArb, (from, shift, metric) => {
        const t = createTransformer({ tenants: tenants({}, 'target'), shiftMs: shift });
        const view = t.transform(exchange({ method: 'GET', url: `/metrics/v2.0/100000/views/${metric}?from=${from}&to=${from + 1000}&resolution=FULL` }));
        expect(view.path).toBe(`/metrics/v2.0/target/views/${metric}?from=${from + shift}&to=${from + 1000 + shift}&resolution=FULL`);
        const body = Buffer.from(JSON.stringify([metric]));
        const many = t.transform(exchange({ method: 'POST', url: `/metrics/v2.0/100000/views?from=${from}&to=${from + 1}&points=5`, contentType: 'application/json', body }));
        expect(many.route).toBe('views (POST)');
        expect(many.body).toBe(body);
        expect(many.points).toBe(0);
        const search = t.transform(exchange({ method: 'GET', url: `/metrics/v2.0/100000/metrics/search?query=${metric}*&from=1` }));
        expect(search.path).toBe(`/metrics/v2.0/target/metrics/search?query=${metric}*&from=1`);
      }),
    );
  });
});
