// Checks the agent endpoint's unauthenticated limits over real sockets on 127.0.0.x: the pending pool per remote address, one hello deadline from TCP accept, the update downloads' own pool, and failed TLS handshakes counted and logged only as a summary.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as connectTcp, type Socket, type TcpSocketConnectOpts } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX, AGENT_TLS_HANDSHAKE_TIMEOUT_MS } from '../../../src/agent/agent-limits.js';
import { AGENT_CERT_HOSTS_DEFAULT, loadAgentTls, type AgentTlsMaterial } from '../../../src/agent/endpoint/agent-ca.js';
import { UpdateStore } from '../../../src/agent/update/update-store.js';
import { ManualClock } from '../../../src/core/clock.js';
import { connectAgent, FakeBackend, helloOf, RecordingLogger, startEndpoint, until, type RunningEndpoint, type TestAgent } from './endpoint-fixtures.js';

// Near the wall clock: certificates issued by this clock are checked against the real time.
const clock = new ManualClock(Date.now());
let tls: AgentTlsMaterial;
let backend: FakeBackend;
let dataDir: string;
const running: RunningEndpoint[] = [];
const sockets: Socket[] = [];

beforeAll(() => {
  tls = loadAgentTls({ dataDir: undefined, hosts: AGENT_CERT_HOSTS_DEFAULT, clock });
  dataDir = mkdtempSync(join(tmpdir(), 'strata-endpoint-limits-'));
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  backend = new FakeBackend();
  backend.tokens.set('token-a', { tenant: 't1', tokenId: 'atA' });
  backend.bind('t1', 'enWeb', 'web-1', false);
});

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const started of running.splice(0)) await started.endpoint.stop();
});

async function start(options: Parameters<typeof startEndpoint>[3] = {}): Promise<RunningEndpoint> {
  const started = await startEndpoint(backend, tls, clock, options);
  running.push(started);
  return started;
}

async function agent(port: number): Promise<TestAgent> {
  const made = await connectAgent(port, tls.rootCert);
  sockets.push(made.socket);
  return made;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** A TCP socket from `localAddress` that never says anything; `closed` counts as it closes. */
function silentSocket(port: number, localAddress: string, onClose: () => void): Socket {
  const socket = connectTcp({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => undefined);
  socket.once('close', onClose);
  sockets.push(socket);
  return socket;
}

/** A TLS connection from `localAddress` that starts an update download and never finishes its request head. */
async function startedDownload(port: number, localAddress: string): Promise<TLSSocket> {
  // tls.connect passes socket.connect options (localAddress) on to its socket; @types/node's ConnectionOptions leaves them out.
  const options: ConnectionOptions & Pick<TcpSocketConnectOpts, 'localAddress'> = { host: '127.0.0.1', port, localAddress, ca: tls.rootCert, rejectUnauthorized: true };
  const socket = connect(options);
  socket.on('error', () => undefined);
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('close', () => reject(new Error('closed before TLS was up')));
  });
  socket.write('GET /upgrades/stable/1.2.0/bundle HTTP/1.1\r\nHost: agent\r\n');
  return socket;
}

describe('AgentEndpoint pending pool', () => {
  it('refuses the connections of one address beyond its share of the pending pool, so an agent elsewhere still says hello', async () => {
    const extra = 4;
    const { port, endpoint } = await start({ pendingHandshakesMax: AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX + 1 });
    let closed = 0;
    for (let i = 0; i < AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX + extra; i++) silentSocket(port(), '127.0.0.2', () => closed++);
    await until(() => endpoint.stats().refused === extra && closed === extra);
    expect(endpoint.stats()).toMatchObject({ handshaking: AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX, connections: AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX });
    const client = await agent(port());
    expect(await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'))).toMatchObject({ entity_id: 'enWeb' });
    expect(endpoint.stats()).toMatchObject({ sessions: 1, refused: extra, handshaking: AGENT_PENDING_HANDSHAKES_PER_ADDRESS_MAX });
    expect(closed).toBe(extra);
  });

  it('runs one hello deadline from TCP accept: a late first byte gets only what remains, and a socket that never starts TLS is closed at it too', async () => {
    // The TLS handshake must end before the deadline, and the first byte is sent FIRST_BYTE_MS after the
    // connect: that much of the deadline is gone when the session starts, which is the slack of the proof
    // below for a late close under load.
    const helloTimeoutMs = 3_000;
    const FIRST_BYTE_MS = 2_000;
    // A timer starts from the event loop's cached time, which lags the real one by what ran (or the time the
    // process waited for a CPU) since the loop last woke: on a loaded machine it can fire that much early.
    const TIMER_EARLY_MS = 300;
    const { port, endpoint } = await start({ helloTimeoutMs });
    // Both connections are accepted after this, so their deadlines are at least helloTimeoutMs after it.
    const startedMs = performance.now();
    const rawClosed = new Promise<number>((resolve) => silentSocket(port(), '127.0.0.1', () => resolve(performance.now())));
    const client = await agent(port());
    const clientClosed = client.closed.then(() => performance.now());
    await sleep(startedMs + FIRST_BYTE_MS - performance.now());
    const firstByteMs = performance.now();
    // An incomplete line: the session waits for the rest of its hello.
    client.socket.write('{');
    // Without the deadline from accept, the raw socket would wait for the TLS handshake timeout: give up
    // on it well before that (seconds after the deadline), not on a loaded machine's slow close.
    let giveUp: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'open'>((resolve) => (giveUp = setTimeout(() => resolve('open'), startedMs + AGENT_TLS_HANDSHAKE_TIMEOUT_MS - 1_000 - performance.now())));
    const outcome = await Promise.race([Promise.all([clientClosed, rawClosed]), gaveUp]);
    clearTimeout(giveUp);
    expect(outcome).not.toBe('open');
    const [clientClosedMs, rawClosedMs] = outcome as [number, number];
    // Neither closed before the deadline.
    expect(rawClosedMs - startedMs).toBeGreaterThanOrEqual(helloTimeoutMs - TIMER_EARLY_MS);
    expect(clientClosedMs - startedMs).toBeGreaterThanOrEqual(helloTimeoutMs - TIMER_EARLY_MS);
    // A fresh hello timer from the first byte could not close the client before firstByteMs + helloTimeoutMs.
    expect(clientClosedMs - firstByteMs).toBeLessThan(helloTimeoutMs - TIMER_EARLY_MS);
    await until(() => endpoint.stats().connections === 0);
    expect(backend.live.size).toBe(0);
  });
});

describe('AgentEndpoint update downloads', () => {
  it('keeps downloads in a pool of their own: the pending pool stays free, and downloads beyond theirs are dropped', async () => {
    const updates = new UpdateStore(dataDir);
    if (updates.latestVersion('stable') === null) updates.publish('stable', '1.2.0', Buffer.from('bundle bytes'), Buffer.from('signature'));
    const { port, endpoint } = await start({ updates, pendingHandshakesMax: 1, downloadsMax: 3, downloadsPerAddressMax: 2 });
    const first = await startedDownload(port(), '127.0.0.1');
    await until(() => endpoint.stats().downloads === 1);
    await startedDownload(port(), '127.0.0.1');
    await until(() => endpoint.stats().downloads === 2);
    // A third download of the same address is dropped; another address still gets one.
    const overAddress = await startedDownload(port(), '127.0.0.1');
    await until(() => overAddress.destroyed || overAddress.readyState === 'closed');
    await startedDownload(port(), '127.0.0.2');
    await until(() => endpoint.stats().downloads === 3);
    const overTotal = await startedDownload(port(), '127.0.0.3');
    await until(() => overTotal.destroyed || overTotal.readyState === 'closed');
    expect(endpoint.stats()).toMatchObject({ downloads: 3, handshaking: 0, refused: 2 });
    // The pending pool (one slot) is free for an agent while three downloads are in flight.
    const client = await agent(port());
    expect(await client.peer.request('handshake.hello', helloOf('token-a', 'web-1'))).toMatchObject({ entity_id: 'enWeb' });
    // A download that ends gives its slot back.
    first.destroy();
    await until(() => endpoint.stats().downloads === 2);
    await startedDownload(port(), '127.0.0.1');
    await until(() => endpoint.stats().downloads === 3);
    expect(endpoint.stats()).toMatchObject({ refused: 2, sessions: 1 });
  });
});

describe('AgentEndpoint logging', () => {
  it('counts failed TLS handshakes and logs them as one summary line without stack frames, and does not log its listeners itself', async () => {
    const logger = new RecordingLogger();
    const { port, endpoint } = await start({ logger });
    for (let i = 0; i < 5; i++) {
      const closed = new Promise<void>((resolve) => silentSocket(port(), '127.0.0.1', resolve).write('GET / HTTP/1.1\r\n\r\n'));
      await closed;
    }
    await until(() => endpoint.stats().tlsFailures === 5);
    // Only the first failure of the interval is logged at once; the listeners are the caller's to log.
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({ level: 'info', msg: 'agent TLS handshakes failed', obj: { failures: 1, failuresTotal: 1 } });
    await endpoint.stop();
    // Stopping logs what the interval still held.
    const summaries = logger.lines.filter((line) => line.msg === 'agent TLS handshakes failed');
    expect(summaries.map((line) => line.obj.failures)).toEqual([1, 4]);
    expect(summaries[1]?.obj).toMatchObject({ failuresTotal: 5, lastRemote: '127.0.0.1' });
    expect(JSON.stringify(logger.lines)).not.toMatch(/frames|\bat /);
  });
});
