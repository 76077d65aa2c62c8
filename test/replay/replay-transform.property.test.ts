// Property tests of replay's request transform: only recorded routes, tenant mapping, time shift of URLs and ingest bodies, points counts.
import fc from 'fast-check';
import { pack, unpack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import type { RecordedExchange } from '../../src/recording/recording-types.js';
import {
  REPLAY_DAY_MS,
  autoShiftMs,
  createTransformer,
  msgpackArrayLength,
  shiftQuery,
  type ReplayRequest,
  type TenantMap,
} from '../../src/replay/replay-transform.js';

// Tenants named '.' and '..' are valid but sent percent-encoded: their own test below.
const tenantArb = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/).filter((t) => t !== '.' && t !== '..');
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

/** The request of a transform that must give one. */
function sent(request: ReplayRequest | null): ReplayRequest {
  expect(request).not.toBeNull();
  return request as ReplayRequest;
}

describe('which exchanges are sent', () => {
  it('gives no request for anything but the five recorded routes (so a crafted recording cannot use the replaying token)', () => {
    const t = createTransformer({ tenants: tenants({}, 'mine'), shiftMs: REPLAY_DAY_MS });
    for (const [method, url] of [
      ['POST', '/monitoring/v1.0/100000/entities'],
      ['DELETE', '/v2.0/tokens'],
      ['DELETE', '/ingest/v2.0/100000/ingest'],
      ['POST', '/ingest/v2.0/100000/../../v2.0/tokens'],
      ['POST', '//evil.test/ingest/v2.0/100000/ingest'],
    ] as const) {
      expect(t.transform(exchange({ method, url, contentType: 'application/json', body: Buffer.from('{"label":"x"}') })), `${method} ${url}`).toBeNull();
    }
  });
});

describe('tenant and time rewriting of URLs', () => {
  it("always maps the URL's own tenant segment, whatever tenant the exchange names", () => {
    fc.assert(
      fc.property(tenantArb, tenantArb, tenantArb, metricArb, fc.boolean(), (urlTenant, claimed, to, metric, paired) => {
        const map = tenants(paired ? { [urlTenant]: to } : {}, 'fallback');
        const t = createTransformer({ tenants: map, shiftMs: 0 });
        const request = sent(t.transform(exchange({ method: 'GET', url: `/metrics/v2.0/${urlTenant}/views/${metric}?from=1&to=2`, tenant: claimed })));
        expect(request.path).toBe(`/metrics/v2.0/${paired ? to : 'fallback'}/views/${metric}?from=1&to=2`);
      }),
    );
  });

  it("never sends a dot segment, even for a target tenant named '.' or '..'", () => {
    for (const fallback of ['.', '..']) {
      const t = createTransformer({ tenants: tenants({}, fallback), shiftMs: 0 });
      expect(sent(t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest' }))).path).toBe(`/ingest/v2.0/${fallback.replaceAll('.', '%2E')}/ingest`);
    }
  });

  it('maps a URL tenant that is not the recorded tenant to the fallback (no request keeps a tenant the map does not name)', () => {
    const t = createTransformer({ tenants: tenants({ t1: 't2' }, 'mine'), shiftMs: 0 });
    expect(sent(t.transform(exchange({ method: 'GET', url: '/metrics/v2.0/other/metrics/search?query=a', tenant: 't1' }))).path).toBe('/metrics/v2.0/mine/metrics/search?query=a');
    expect(sent(t.transform(exchange({ method: 'GET', url: '/metrics/v2.0/t1/metrics/search?query=a', tenant: 'other' }))).path).toBe('/metrics/v2.0/t2/metrics/search?query=a');
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
  it('is whole days, never negative, and brings the last request into the last day, so no request is in the future', () => {
    fc.assert(
      fc.property(timeArb, fc.integer({ min: 0, max: 400 * REPLAY_DAY_MS }), fc.integer({ min: 0, max: 5 * REPLAY_DAY_MS }), (start, age, span) => {
        const last = start + span;
        const now = last + age;
        const shift = autoShiftMs(last, now);
        expect(shift % REPLAY_DAY_MS).toBe(0);
        expect(shift).toBeGreaterThanOrEqual(0);
        expect(last + shift).toBeLessThanOrEqual(now);
        expect(last + shift).toBeGreaterThan(now - REPLAY_DAY_MS);
        expect(start + shift).toBeLessThanOrEqual(now);
      }),
    );
  });

  it('does not shift a recording whose last request came after now', () => {
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
        const request = sent(t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: format.type, body })));
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
        const request = sent(t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: format.type, body })));
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
        const request = sent(t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/a/ingest/multi', tenant: 'a', contentType: format.type, body: format.encode(points) })));
        const expected = { a: 'x', b: 'y', c: 'fallback' } as const;
        expect(request.path).toBe('/ingest/v2.0/x/ingest/multi');
        const recorded = format.decode(format.encode(points)) as Array<{ tenantId: 'a' | 'b' | 'c' }>;
        expect(format.decode(request.body as Uint8Array)).toEqual(recorded.map((p) => ({ ...p, tenantId: expected[p.tenantId] })));
      }),
    );
  });

  it('reads the body format as the server does: application/msgpack is not msgpack there, so its body is sent as recorded', () => {
    const body = pack([{ metricName: 'm', metricValue: 1, collectionTime: 1_700_000_000_000, ttlInSeconds: 60 }]);
    const t = createTransformer({ tenants: tenants({}, 't'), shiftMs: REPLAY_DAY_MS });
    const alias = sent(t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: 'application/msgpack', body })));
    expect(alias.body).toBe(body);
    expect(alias.points).toBe(0);
    const real = sent(t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: 'Application/X-Msgpack; charset=binary', body })));
    expect((unpack(real.body as Uint8Array) as Array<{ collectionTime: number }>)[0]?.collectionTime).toBe(1_700_000_000_000 + REPLAY_DAY_MS);
  });

  it('sends a body that does not decode as recorded, counting no points', () => {
    const body = Buffer.from('[1,2');
    const t = createTransformer({ tenants: tenants({}, 't'), shiftMs: REPLAY_DAY_MS });
    const request = sent(t.transform(exchange({ method: 'POST', url: '/ingest/v2.0/100000/ingest', contentType: 'application/json', body })));
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
        const view = sent(t.transform(exchange({ method: 'GET', url: `/metrics/v2.0/100000/views/${metric}?from=${from}&to=${from + 1000}&resolution=FULL` })));
        expect(view.path).toBe(`/metrics/v2.0/target/views/${metric}?from=${from + shift}&to=${from + 1000 + shift}&resolution=FULL`);
        const body = Buffer.from(JSON.stringify([metric]));
        const many = sent(t.transform(exchange({ method: 'POST', url: `/metrics/v2.0/100000/views?from=${from}&to=${from + 1}&points=5`, contentType: 'application/json', body })));
        expect(many.route).toBe('views (POST)');
        expect(many.body).toBe(body);
        expect(many.points).toBe(0);
        const search = sent(t.transform(exchange({ method: 'GET', url: `/metrics/v2.0/100000/metrics/search?query=${metric}*&from=1` })));
        expect(search.path).toBe(`/metrics/v2.0/target/metrics/search?query=${metric}*&from=1`);
      }),
    );
  });
});
