// Tests posting check results over real agent connections to TLS endpoints on 127.0.0.1, on a manual clock: pacing, AGENT_RATE_LIMITED holds, 400 refusals.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../../src/core/clock.js';
import { StrataError, isStrataError } from '../../../src/core/errors.js';
import { AGENT_CLIENT_POSTS_PER_SECOND_MAX, AGENT_POST_ATTEMPTS_MAX, AGENT_RATE_LIMITED_BACKOFF_MS } from '../../../src/agent/agent-limits.js';
import { AgentConnection } from '../../../src/agent/client/agent-connection.js';
import { ResultPoster, type PostConnection } from '../../../src/agent/client/result-poster.js';
import { loadAgentTls, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import type { MetricsPostParams } from '../../../src/agent/protocol/messages.js';
import { wireMetric } from '../../../src/agent/protocol/wire-metrics.js';
import { ManualScheduler } from './manual-scheduler.js';
import { recordingLogger, TestEndpoint, waitFor, type TestEndpointSettings } from './test-endpoint.js';

const START_MS = 1_700_000_000_000;
const GUID = '11111111-2222-4333-8444-555555555555';
/** The clock moves in steps this small (it divides the pacing interval and the rate-limit hold), the network quiet between steps. */
const STEP_MS = 5;
/** How far the test clock may run before a test gives up. */
const CLOCK_BUDGET_MS = 60_000;

/** One post the poster sent over a connection: the test clock then, which result, and how it ended (undefined while in flight). */
interface Sent {
  readonly atMs: number;
  readonly connection: number;
  readonly key: string;
  outcome: 'posted' | string | undefined;
}

let tls: AgentTlsMaterial;
const endpoints: TestEndpoint[] = [];
const connections: AgentConnection[] = [];
const posters: ResultPoster[] = [];

beforeAll(() => {
  tls = loadAgentTls({ dataDir: undefined, hosts: ['127.0.0.1', 'localhost'], clock: systemClock });
});

afterEach(async () => {
  for (const poster of posters.splice(0)) poster.stop();
  await Promise.all(connections.splice(0).map((connection) => connection.stop()));
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.stop()));
});

function result(index: number): MetricsPostParams {
  return { check_id: `ch${index}`, check_type: 'agent.test', state: 'available', status: 'success', metrics: [[null, { n: wireMetric('int64', index, 'count') }]], timestamp: START_MS + index };
}

function keyOf(params: unknown): string {
  const post = params as MetricsPostParams;
  return `${post.check_id}@${post.timestamp}`;
}

/** A poster over one real connection per endpoint; each connection is seen through a recorder of the posts it carries. */
async function posterOver(targets: readonly TestEndpoint[]) {
  const clock = new ManualClock(START_MS);
  const scheduler = new ManualScheduler(clock);
  const sent: Sent[] = [];
  let poster: ResultPoster | undefined;
  const real = targets.map((target) => {
    const connection = new AgentConnection({
      endpoint: { host: '127.0.0.1', port: target.port },
      ca: tls.rootCert,
      guid: GUID,
      hello: () => ({ token: 'f'.repeat(64) + ':1234', agent_id: 'agent.example.com', agent_name: 'Strata agent', process_version: '0.1.0', bundle_version: '0.1.0', features: [] }),
      events: { onReady: () => poster?.pump(), onDown: () => undefined, onScheduleChanged: () => undefined, onUpgradeRequest: () => undefined },
      clock,
      scheduler,
      random: () => 0.5,
      logger: recordingLogger(),
      reconnectBaseMs: 20,
      reconnectMaxMs: 200,
    });
    connections.push(connection);
    return connection;
  });
  const recorded: PostConnection[] = real.map((connection, index) => ({
    get name() {
      return connection.name;
    },
    get ready() {
      return connection.ready;
    },
    request: (method: string, params: unknown) => {
      const entry: Sent = { atMs: clock.now(), connection: index, key: keyOf(params), outcome: undefined };
      sent.push(entry);
      return connection.request(method, params).then(
        (answer) => {
          entry.outcome = 'posted';
          return answer;
        },
        (error: unknown) => {
          entry.outcome = isStrataError(error) ? String(error.details.type ?? error.code) : 'unknown';
          throw error;
        },
      );
    },
  }));
  poster = new ResultPoster({ connections: recorded, clock, scheduler, logger: recordingLogger() });
  posters.push(poster);
  for (const connection of real) connection.start();
  await waitFor(() => real.every((connection) => connection.ready), 'every connection ready');
  /**
   * Moves the test clock STEP_MS at a time, letting every post in flight be answered before each step (so a post's
   * answer is handled at the time it was sent), and the network catch up in real time while a connection is down,
   * until `done` holds; `onQuiet` runs at each quiet point (it changes what the endpoints answer).
   */
  async function drive(done: () => boolean, what: string, onQuiet: () => void = () => undefined): Promise<void> {
    const limitMs = clock.now() + CLOCK_BUDGET_MS;
    for (;;) {
      await waitFor(() => sent.every((entry) => entry.outcome !== undefined), 'the posts in flight answered');
      onQuiet();
      if (done()) return;
      if (clock.now() >= limitMs) throw new Error(`the test clock ran out waiting for ${what}`);
      if (!real.every((connection) => connection.ready)) await new Promise((resolve) => setTimeout(resolve, STEP_MS));
      await scheduler.advance(STEP_MS);
    }
  }
  return { clock, poster, sent, drive };
}

async function endpoint(settings: Partial<TestEndpointSettings> = {}): Promise<TestEndpoint> {
  // Heartbeats rarely: the test clock moves only in small steps.
  const started = await TestEndpoint.start(tls, { heartbeatIntervalMs: 60_000, ...settings });
  endpoints.push(started);
  return started;
}

function postedKeys(sent: readonly Sent[]): string[] {
  return sent.filter((entry) => entry.outcome === 'posted').map((entry) => entry.key);
}

describe('ResultPoster', () => {
  it(`paces each connection at ${AGENT_CLIENT_POSTS_PER_SECOND_MAX} posts in any second of its clock, and posts every result once`, async () => {
    const first = await endpoint();
    const second = await endpoint();
    const { poster, sent, drive } = await posterOver([first, second]);
    const count = 5 * AGENT_CLIENT_POSTS_PER_SECOND_MAX;
    for (let i = 0; i < count; i += 1) poster.enqueue(result(i));
    await drive(() => poster.status().posted === count, 'every result posted');
    for (const connection of [0, 1]) {
      const times = sent.filter((entry) => entry.connection === connection).map((entry) => entry.atMs);
      expect(times.length).toBeGreaterThan(AGENT_CLIENT_POSTS_PER_SECOND_MAX);
      // Every window [t, t + 1 s) that starts at a post holds at most the allowed posts (the busiest windows start at one).
      const busiest = Math.max(...times.map((startMs) => times.filter((atMs) => atMs >= startMs && atMs < startMs + 1_000).length));
      expect(busiest).toBeLessThanOrEqual(AGENT_CLIENT_POSTS_PER_SECOND_MAX);
    }
    const keys = postedKeys(sent);
    expect(new Set(keys)).toEqual(new Set(Array.from({ length: count }, (_, i) => keyOf(result(i)))));
    expect(keys).toHaveLength(count);
    expect(first.of('check_metrics.post').length + second.of('check_metrics.post').length).toBe(count);
    expect(poster.status()).toEqual({ buffered: 0, dropped: 0, posted: count, refused: 0, requeued: 0, abandoned: 0, oversized: 0 });
  });

  it(`requeues a post refused as AGENT_RATE_LIMITED without counting an attempt, holding that connection ${AGENT_RATE_LIMITED_BACKOFF_MS} ms each time`, async () => {
    const rateLimited = new StrataError('AGENT_RATE_LIMITED', 'too many requests');
    const busy = new StrataError('AGENT_BUSY', 'the metrics queue is full');
    const target = await endpoint({ refusePosts: rateLimited });
    const { poster, sent, drive } = await posterOver([target]);
    for (let i = 0; i < 3; i += 1) poster.enqueue(result(i));
    const outcomes = (outcome: string): number => sent.filter((entry) => entry.outcome === outcome).length;
    // As many rate-limited refusals as a result has attempts, then one fewer AGENT_BUSY failures (each an attempt,
    // each closing the connection): had the refusals counted, the first of those would have dropped the result.
    await drive(
      () => poster.status().posted === 3,
      'every result posted',
      () => {
        if (outcomes('AGENT_RATE_LIMITED') >= AGENT_POST_ATTEMPTS_MAX) target.settings.refusePosts = busy;
        if (outcomes('AGENT_BUSY') >= AGENT_POST_ATTEMPTS_MAX - 1) target.settings.refusePosts = undefined;
      },
    );
    expect(outcomes('AGENT_RATE_LIMITED')).toBe(AGENT_POST_ATTEMPTS_MAX);
    expect(outcomes('AGENT_BUSY')).toBe(AGENT_POST_ATTEMPTS_MAX - 1);
    // Every refusal and failure was of the front result, put back each time.
    expect(new Set(sent.filter((entry) => entry.outcome !== 'posted').map((entry) => entry.key))).toEqual(new Set([keyOf(result(0))]));
    sent.forEach((entry, index) => {
      const next = sent[index + 1];
      if (entry.outcome === 'AGENT_RATE_LIMITED' && next !== undefined) expect(next.atMs - entry.atMs).toBeGreaterThanOrEqual(AGENT_RATE_LIMITED_BACKOFF_MS);
    });
    expect(postedKeys(sent).sort()).toEqual([0, 1, 2].map((i) => keyOf(result(i))).sort());
    expect(poster.status()).toEqual({ buffered: 0, dropped: 0, posted: 3, refused: 0, requeued: 2 * AGENT_POST_ATTEMPTS_MAX - 1, abandoned: 0, oversized: 0 });
  });

  it('holds only the connection refused as AGENT_RATE_LIMITED: the others post on meanwhile, and every result goes once', async () => {
    const limited = await endpoint({ refusePosts: new StrataError('AGENT_RATE_LIMITED', 'too many requests') });
    const other = await endpoint();
    const { clock, poster, sent, drive } = await posterOver([limited, other]);
    const startMs = clock.now();
    const count = 2 * AGENT_CLIENT_POSTS_PER_SECOND_MAX;
    for (let i = 0; i < count; i += 1) poster.enqueue(result(i));
    await drive(
      () => poster.status().posted === count,
      'every result posted',
      () => {
        if (sent.some((entry) => entry.outcome === 'AGENT_RATE_LIMITED')) limited.settings.refusePosts = undefined;
      },
    );
    const onLimited = sent.filter((entry) => entry.connection === 0);
    expect(onLimited[0]).toMatchObject({ atMs: startMs, key: keyOf(result(0)), outcome: 'AGENT_RATE_LIMITED' });
    expect(onLimited[1]?.atMs).toBeGreaterThanOrEqual(startMs + AGENT_RATE_LIMITED_BACKOFF_MS);
    const meanwhile = sent.filter((entry) => entry.connection === 1 && entry.atMs < startMs + AGENT_RATE_LIMITED_BACKOFF_MS);
    expect(meanwhile.length).toBeGreaterThan(1);
    expect(meanwhile.map((entry) => entry.key)).toContain(keyOf(result(0)));
    const keys = postedKeys(sent);
    expect(keys).toHaveLength(count);
    expect(new Set(keys).size).toBe(count);
    expect(poster.status()).toMatchObject({ posted: count, requeued: 1, refused: 0, abandoned: 0, buffered: 0 });
  });

  it('drops a result refused with a plain 400, posting it once and holding nothing', async () => {
    const target = await endpoint({ refusePosts: new StrataError('AGENT_CHECK_UNKNOWN', 'no such check') });
    const { clock, poster, sent, drive } = await posterOver([target]);
    const startMs = clock.now();
    const count = 5;
    for (let i = 0; i < count; i += 1) poster.enqueue(result(i));
    await drive(() => poster.status().refused === count, 'every result refused');
    expect(sent.map((entry) => entry.key)).toEqual(Array.from({ length: count }, (_, i) => keyOf(result(i))));
    expect(sent.every((entry) => entry.outcome === 'AGENT_CHECK_UNKNOWN')).toBe(true);
    // Paced, never held: the last went well before a rate-limit hold would have let it.
    expect(sent.at(-1)?.atMs).toBeLessThan(startMs + AGENT_RATE_LIMITED_BACKOFF_MS);
    expect(target.of('check_metrics.post')).toHaveLength(count);
    expect(poster.status()).toEqual({ buffered: 0, dropped: 0, posted: 0, refused: count, requeued: 0, abandoned: 0, oversized: 0 });
    expect(connections[0]?.status()).toMatchObject({ state: 'ready', hellos: 1, failures: 0 });
  });
});
