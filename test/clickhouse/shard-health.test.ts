// Tests ShardHealth: health() is ok until a shard fails a request or a ping, names each shard down since when it was first found down, and clears a shard once its ping answers.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ShardClient } from '../../src/clickhouse/shard-client.js';
import { ShardHealth } from '../../src/clickhouse/shard-health.js';
import { StrataError } from '../../src/core/errors.js';
import { closedPorts } from '../support/closed-ports.js';

const unavailable = (shard: unknown) => new StrataError('STORE_SHARD_UNAVAILABLE', 'no answer', { shard });

let live: ShardClient;
let dead: ShardClient;
let deadToo: ShardClient;

beforeAll(async () => {
  const { urls } = inject('clickhouse');
  const options = { database: 'default', requestTimeoutMs: 5_000 };
  live = new ShardClient({ url: urls[0] as string, ...options });
  const [deadPort, deadTooPort] = await closedPorts(2);
  dead = new ShardClient({ url: `http://127.0.0.1:${deadPort}`, ...options });
  deadToo = new ShardClient({ url: `http://127.0.0.1:${deadTooPort}`, ...options });
});

afterAll(async () => {
  await Promise.all([live, dead, deadToo].map((c) => c?.close()));
});

describe('ShardHealth', () => {
  it('is ok with nothing noted, and after a probe where every shard answers', async () => {
    const health = new ShardHealth();
    expect(health.health()).toEqual({ status: 'ok', reasons: [] });
    await health.probe([live], 1_000);
    expect(health.health()).toEqual({ status: 'ok', reasons: [] });
    expect(health.downShards()).toEqual([]);
  });

  it('notes only STORE_SHARD_UNAVAILABLE errors that name a shard', () => {
    const health = new ShardHealth();
    health.noteFailure(new Error('boom'), 1);
    health.noteFailure(new StrataError('STORE_BACKEND_FAILED', 'syntax', { shard: live.url }), 2);
    health.noteFailure(new StrataError('STORE_SHARD_UNAVAILABLE', 'no shard named', {}), 3);
    health.noteFailure(unavailable(42), 4);
    health.noteFailure(undefined, 5);
    expect(health.health()).toEqual({ status: 'ok', reasons: [] });

    health.noteFailure(unavailable('http://a:1'), 10);
    health.noteFailure(unavailable('http://b:1'), 20);
    // A later failure of a shard already down keeps when it was first found down.
    health.noteFailure(unavailable('http://a:1'), 30);
    const h = health.health();
    expect(h.status).toBe('unavailable');
    expect(h.reasons.map((r) => [r.code, r.details])).toEqual([
      ['STORE_SHARD_UNAVAILABLE', { shard: 'http://a:1', sinceMs: 10 }],
      ['STORE_SHARD_UNAVAILABLE', { shard: 'http://b:1', sinceMs: 20 }],
    ]);
    expect(h.reasons[0]?.message).toContain('http://a:1');
    expect(health.downShards()).toEqual(['http://a:1', 'http://b:1']);
  });

  it('a probe marks the shards that do not answer, keeps their first time, and clears them once they answer', async () => {
    const health = new ShardHealth();
    await health.probe([live, dead], 100);
    expect(health.health()).toEqual({
      status: 'unavailable',
      reasons: [expect.objectContaining({ code: 'STORE_SHARD_UNAVAILABLE', details: { shard: dead.url, sinceMs: 100 } })],
    });
    await health.probe([live, dead, deadToo], 200);
    expect(health.health().reasons.map((r) => r.details)).toEqual([
      { shard: dead.url, sinceMs: 100 },
      { shard: deadToo.url, sinceMs: 200 },
    ]);
    // A shard noted down by a failed request is cleared by a probe where it answers.
    health.noteFailure(unavailable(live.url), 250);
    expect(health.downShards()).toEqual([dead.url, deadToo.url, live.url]);
    await health.probe([live], 300);
    expect(health.downShards()).toEqual([dead.url, deadToo.url]);
    // A probe speaks only of the shards it pinged.
    await health.probe([deadToo], 400);
    expect(health.health().reasons.map((r) => r.details)).toEqual([
      { shard: dead.url, sinceMs: 100 },
      { shard: deadToo.url, sinceMs: 200 },
    ]);
  });
});
