// Checks a session's bounds over real TLS: the short line bound before the hello and the long one after, the request rate limit (refusals, then the close), posts the engine would refuse as too old, and AGENT_BUSY closing the connection.
import { once } from 'node:events';
import { connect, type TLSSocket } from 'node:tls';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_HELLO_LINE_BYTES_MAX, AGENT_RATE_LIMITED_CLOSE_AFTER, AGENT_REQUESTS_BURST_MAX, AGENT_REQUESTS_PER_SECOND_MAX } from '../../../src/agent/agent-limits.js';
import { AGENT_CERT_HOSTS_DEFAULT, loadAgentTls, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import { resultTimestampBounds } from '../../../src/monitoring/runner/result-timestamp.js';
import { DEFAULT_RETENTION_MS } from '../../../src/model/resolution.js';
import { INGEST_FUTURE_SKEW_MS } from '../../../src/core/limits.js';
import type { MetricsPostParams } from '../../../src/agent/protocol/messages.js';
import { ManualClock } from '../../../src/core/clock.js';
import { StrataError } from '../../../src/core/errors.js';
import { agentCheck, connectAgent, FakeBackend, helloOf, startEndpoint, until, type RunningEndpoint, type TestAgent } from './endpoint-fixtures.js';

// Near the wall clock: certificates issued by this clock are checked against the real time. It
// only moves when a test moves it, so the request budget refills exactly as the test says.
const clock = new ManualClock(Date.now());
let tls: AgentTlsMaterial;
let backend: FakeBackend;
let started: RunningEndpoint;
let client: TestAgent;

beforeAll(() => {
  tls = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
});

beforeEach(async () => {
  backend = new FakeBackend();
  backend.tokens.set('token-a', { tenant: 't1', tokenId: 'atA' });
  backend.bind('t1', 'enWeb', 'web-1', false);
  backend.addCheck('t1', agentCheck('enWeb', 'chCpu', 'agent.cpu'), false);
  started = await startEndpoint(backend, tls, clock);
  client = await connectAgent(started.port(), tls.rootCert);
});

afterEach(async () => {
  client.socket.destroy();
  await started.endpoint.stop();
});

/** The protocol error of a refused request (its details: code, message, type). */
async function refusal(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StrataError);
  expect((error as StrataError).code).toBe('AGENT_REQUEST_REFUSED');
  return (error as StrataError).details;
}

/** A raw TLS connection to the endpoint: what it writes, parsed line by line, and when it closes. */
async function rawConnection(): Promise<{ socket: TLSSocket; lines: Record<string, unknown>[]; closed: Promise<void> }> {
  const socket = connect({ host: '127.0.0.1', port: started.port(), ca: tls.rootCert, rejectUnauthorized: true });
  await once(socket, 'secureConnect');
  const lines: Record<string, unknown>[] = [];
  let partial = '';
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => {
    partial += text;
    for (let end = partial.indexOf('\n'); end !== -1; end = partial.indexOf('\n')) {
      lines.push(JSON.parse(partial.slice(0, end)) as Record<string, unknown>);
      partial = partial.slice(end + 1);
    }
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, lines, closed };
}

function post(extra: Partial<MetricsPostParams> = {}): MetricsPostParams {
  return { check_id: 'chCpu', check_type: 'agent.cpu', state: 'available', status: 'ok', timestamp: clock.now() - 1_000, metrics: [[null, { usage_average: { t: 'double', v: '1', u: 'percent' } }]], ...extra };
}

/** Sends `count` config_file.post requests, at most 50 waiting at once (the test agent's own bound is 64); their answers or refusals in order. */
async function burst(count: number): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  for (let sent = 0; sent < count; sent += 50) {
    const batch = Array.from({ length: Math.min(50, count - sent) }, () => client.peer.request('config_file.post', {}).catch((error: unknown) => (error as StrataError).details.type));
    outcomes.push(...(await Promise.all(batch)));
  }
  return outcomes;
}

/** `count` config_file.post request lines written past the test agent's peer (their answers name ids it never asked, and are dropped). */
function rawRequests(count: number): string {
  return Array.from({ length: count }, (_, i) => `${JSON.stringify({ v: '1', id: `raw${i}`, source: 'guid-1', target: 'endpoint', method: 'config_file.post', params: {} })}\n`).join('');
}

describe('AgentSession line bound', () => {
  it('reads lines of at most AGENT_HELLO_LINE_BYTES_MAX before the hello: one longer is a 413 and the connection closes', async () => {
    const raw = await rawConnection();
    try {
      raw.socket.write(`{${'x'.repeat(AGENT_HELLO_LINE_BYTES_MAX - 1)}\n`);
      await until(() => raw.lines.length === 1);
      expect(raw.lines[0]).toMatchObject({ id: null, error: { code: 400, type: 'AGENT_MESSAGE_INVALID' } });
      raw.socket.write(`{${'x'.repeat(AGENT_HELLO_LINE_BYTES_MAX)}`);
      await raw.closed;
      expect(raw.lines[1]).toMatchObject({ id: null, result: null, error: { code: 413, type: 'AGENT_LINE_TOO_LONG' } });
      expect(raw.lines).toHaveLength(2);
    } finally {
      raw.socket.destroy();
    }
  });

  it('reads lines up to AGENT_LINE_BYTES_MAX once the hello succeeded', async () => {
    await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
    expect(await client.peer.request('config_file.post', { config_data: 'x'.repeat(100 * 1024) })).toEqual({});
    expect(client.peer.closed).toBe(false);
  });
});

describe('AgentSession request rate', () => {
  beforeEach(async () => {
    await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
  });

  it('serves a burst of AGENT_REQUESTS_BURST_MAX, refuses more with a 400 AGENT_RATE_LIMITED keeping the connection, and refills AGENT_REQUESTS_PER_SECOND_MAX a second', async () => {
    // The hello spent one.
    const first = await burst(AGENT_REQUESTS_BURST_MAX);
    expect(first.slice(0, AGENT_REQUESTS_BURST_MAX - 1).every((outcome) => JSON.stringify(outcome) === '{}')).toBe(true);
    expect(first[AGENT_REQUESTS_BURST_MAX - 1]).toBe('AGENT_RATE_LIMITED');
    expect(await refusal(client.peer.request('heartbeat.post', { timestamp: 1 }))).toMatchObject({ code: 400, type: 'AGENT_RATE_LIMITED' });
    expect(client.peer.closed).toBe(false);
    clock.advance(1_000);
    const refilled = await burst(AGENT_REQUESTS_PER_SECOND_MAX + 1);
    expect(refilled.filter((outcome) => outcome === 'AGENT_RATE_LIMITED')).toHaveLength(1);
    expect(refilled[AGENT_REQUESTS_PER_SECOND_MAX]).toBe('AGENT_RATE_LIMITED');
    expect(started.endpoint.stats().heartbeats).toBe(0);
  });

  it('closes the connection at the AGENT_RATE_LIMITED_CLOSE_AFTER-th refusal without a pause, answering it first', async () => {
    await burst(AGENT_REQUESTS_BURST_MAX - 1);
    // All refusals but the last one, sent raw.
    client.socket.write(rawRequests(AGENT_RATE_LIMITED_CLOSE_AFTER - 1));
    expect(await refusal(client.peer.request('config_file.post', {}))).toMatchObject({ code: 400, type: 'AGENT_RATE_LIMITED' });
    await client.closed;
    await until(() => backend.live.size === 0);
    expect(started.endpoint.stats().sessions).toBe(0);
  });

  it('forgets refusals once the agent paused long enough to refill the bucket', async () => {
    await burst(AGENT_REQUESTS_BURST_MAX - 1);
    client.socket.write(rawRequests(AGENT_RATE_LIMITED_CLOSE_AFTER - 1));
    await until(() => started.endpoint.stats().protocolErrors === AGENT_RATE_LIMITED_CLOSE_AFTER - 1);
    clock.advance((AGENT_REQUESTS_BURST_MAX / AGENT_REQUESTS_PER_SECOND_MAX) * 1_000);
    expect((await burst(AGENT_REQUESTS_BURST_MAX)).every((outcome) => JSON.stringify(outcome) === '{}')).toBe(true);
    // Without the pause this would be the closing refusal.
    expect(await refusal(client.peer.request('config_file.post', {}))).toMatchObject({ code: 400, type: 'AGENT_RATE_LIMITED' });
    clock.advance(1_000);
    expect(await client.peer.request('config_file.post', {})).toEqual({});
    expect(client.peer.closed).toBe(false);
  });
});

describe('AgentSession metric posts', () => {
  beforeEach(async () => {
    await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'));
  });

  it('refuses a post older than the engine takes with a 400 AGENT_PARAMS_INVALID, so the agent counts it rather than lose it', async () => {
    // The engine's bounds as a default store has them; the runtime's rule (the backend's accept) refuses outside them.
    backend.engineBounds = { oldestMs: clock.now() - DEFAULT_RETENTION_MS.FULL, newestMs: clock.now() + INGEST_FUTURE_SKEW_MS };
    const oldestMs = resultTimestampBounds(backend.engineBounds).oldestMs;
    for (const timestamp of [0, oldestMs - 1]) {
      expect(await refusal(client.peer.request('check_metrics.post', post({ timestamp })))).toMatchObject({ code: 400, type: 'AGENT_PARAMS_INVALID' });
    }
    expect(backend.accepted).toEqual([]);
    expect(await client.peer.request('check_metrics.post', post({ timestamp: oldestMs }))).toEqual({});
    expect(backend.accepted).toHaveLength(1);
    expect(client.peer.closed).toBe(false);
  });

  it('answers AGENT_BUSY with a 503 when the backend cannot take the result now, and the connection closes (the agent keeps the result)', async () => {
    backend.accept = () => {
      throw new StrataError('AGENT_BUSY', 'the metrics queue to the engine is full');
    };
    expect(await refusal(client.peer.request('check_metrics.post', post()))).toMatchObject({ code: 503, type: 'AGENT_BUSY' });
    await client.closed;
    await until(() => backend.live.size === 0);
    expect(started.endpoint.stats()).toMatchObject({ metricPosts: 0, metricsAccepted: 0 });
  });
});
