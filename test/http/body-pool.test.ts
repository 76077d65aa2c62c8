// Tests pooled request bodies: buffer reuse and caps, and ingest over HTTP with streamed, reused and oversized bodies.
import { pack } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyPool } from '../../src/http/body-pool.js';
import { SPARE_BODIES_MAX } from '../../src/http/http-limits.js';
import { call, startHarness, type Harness } from './harness.js';

describe('BodyPool', () => {
  it('lends a buffer big enough, takes back only its own buffers and only once, and reuses them', () => {
    const pool = new BodyPool();
    const first = pool.take(100_000);
    expect(first.length).toBeGreaterThanOrEqual(100_000);
    pool.give(first.subarray(0, 10));
    expect(pool.spares).toBe(1);
    pool.give(first.subarray(0, 10));
    pool.give(Buffer.alloc(100_000));
    pool.give('not a buffer');
    expect(pool.spares).toBe(1);
    const again = pool.take(50_000);
    expect(again.buffer).toBe(first.buffer);
    expect(pool.spares).toBe(0);
    // A spare too small is not lent for a bigger body.
    pool.give(again);
    expect(pool.take(first.length + 1).buffer).not.toBe(first.buffer);
  });

  it('keeps at most SPARE_BODIES_MAX spares', () => {
    const pool = new BodyPool();
    const lent = Array.from({ length: SPARE_BODIES_MAX + 3 }, () => pool.take(1000));
    for (const buffer of lent) pool.give(buffer);
    expect(pool.spares).toBe(SPARE_BODIES_MAX);
  });
});

describe('ingest bodies in pooled buffers over HTTP', () => {
  const NOW = Math.floor(Date.now() / 300_000) * 300_000;
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ config: { bodyLimitBytes: 256 * 1024 } });
    token = await h.token('alice');
  });
  afterAll(async () => h.close());

  const metrics = (name: string, count: number) => Array.from({ length: count }, (_, i) => ({ metricName: name, metricValue: i + 0.5, collectionTime: NOW - 3_600_000 + i * 1000, ttlInSeconds: 3600 }));
  const values = async (name: string): Promise<number[]> => {
    const res = await call(h, 'GET', `/metrics/v2.0/t1/views/${name}?from=${NOW - 3_600_000}&to=${NOW}&resolution=FULL`, { token });
    return (res.json as { values: { average: number }[] }).values.map((v) => v.average);
  };

  it('decodes each body on its own when a big body is followed by smaller ones in the same buffer', async () => {
    const big = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token, body: pack(metrics('big', 1500)), type: 'application/x-msgpack' });
    expect(big.status).toBe(200);
    for (const [name, count] of [['small', 3], ['smaller', 1]] as const) {
      const res = await call(h, 'POST', '/ingest/v2.0/t1/ingest', { token, json: metrics(name, count) });
      expect(res.status).toBe(200);
      expect(await values(name)).toEqual(metrics(name, count).map((m) => m.metricValue));
    }
    expect(await values('big')).toHaveLength(1500);
  });

  it('reads a streamed body without Content-Length, growing its buffer, and refuses one that streams past the limit', async () => {
    const text = JSON.stringify(metrics('streamed', 1200));
    expect(text.length).toBeGreaterThan(64 * 1024);
    const streamOf = (bytes: Buffer) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 10_000) controller.enqueue(bytes.subarray(at, at + 10_000));
          controller.close();
        },
      });
    const post = (bytes: Buffer) =>
      fetch(`${h.url}/ingest/v2.0/t1/ingest`, { method: 'POST', headers: { 'x-auth-token': token, 'content-type': 'application/json' }, body: streamOf(bytes), duplex: 'half' } as RequestInit);
    const ok = await post(Buffer.from(text));
    expect(ok.status).toBe(200);
    expect(await values('streamed')).toHaveLength(1200);
    const tooBig = await post(Buffer.from(JSON.stringify(metrics('huge', 4000))));
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ code: 413, details: { code: 'HTTP_BODY_TOO_LARGE' } });
    expect(await values('huge')).toEqual([]);
  });
});
