// Tests RpcPeer over real TLS connections on 127.0.0.1 against bad input and every bound: invalid and oversized lines (and a bound raised on the way), answers that cannot be written, slow peers, pending requests.
import { describe, expect, it, vi } from 'vitest';
import type { StrataError } from '../../../src/core/errors.js';
import { RpcPeer } from '../../../src/agent/protocol/rpc-peer.js';
import { PeerFixtures, closeWatch, never, rejection, requestLine, sleep } from './rpc-peer-harness.js';

const fixtures = new PeerFixtures();
/** A write buffer bound and a request pad that fits it four times. */
const SLOW_BUFFER_BYTES = 64 * 1024;
const SLOW_PAD = 'x'.repeat(SLOW_BUFFER_BYTES / 4);

describe('RpcPeer invalid input', () => {
  it('answers a line that is not JSON with a 400 and id null, and keeps the connection', async () => {
    const { reader, send, endpoint } = await fixtures.endpointWithRawAgent(() => 'pong');
    send('not json\n');
    expect(await reader.next()).toMatchObject({ id: null, result: null, error: { code: 400, type: 'AGENT_MESSAGE_INVALID' } });
    send(requestLine(1, 'heartbeat.post'));
    expect(await reader.next()).toMatchObject({ id: 1, result: 'pong', error: null });
    expect(endpoint.closed).toBe(false);
  });

  it.each([
    ['a wrong version', { v: '2', id: 5, source: 'a', target: 'endpoint', method: 'm', params: {} }, 5],
    ['a source that is not a string', { v: '1', id: 'x1', source: 3, target: 'endpoint', method: 'm' }, 'x1'],
    ['neither method nor result', { v: '1', id: 6, source: 'a', target: 'endpoint' }, 6],
    ['a bad error object', { v: '1', id: 8, source: 'a', target: 'endpoint', result: null, error: { code: 'x' } }, 8],
    ['an id that is an object', { v: '1', id: {}, source: 'a', target: 'endpoint', method: 'm' }, null],
    ['an id too long', { v: '1', id: 'i'.repeat(65), source: 'a', target: 'endpoint', method: 'm' }, null],
    ['a request with id null', { v: '1', id: null, source: 'a', target: 'endpoint', method: 'm' }, null],
    ['an array', [1, 2], null],
  ])('answers %s with a 400 naming the id when it had a valid one', async (_name, message, id) => {
    const { reader, send } = await fixtures.endpointWithRawAgent(() => 'pong');
    send(`${JSON.stringify(message)}\n`);
    expect(await reader.next()).toMatchObject({ v: '1', id, error: { code: 400, type: 'AGENT_MESSAGE_INVALID' } });
  });

  it('closes after invalidMessagesMax invalid messages in a row, each answered; a valid one resets the count', async () => {
    const { reader, send, watch, endpoint } = await fixtures.endpointWithRawAgent(() => 'pong', { invalidMessagesMax: 3 });
    send('x\ny\n');
    send(requestLine(1, 'heartbeat.post'));
    send('z\nw\n');
    for (let i = 0; i < 5; i++) await reader.next();
    expect(endpoint.closed).toBe(false);
    send('v\n');
    expect(await reader.next()).toMatchObject({ error: { code: 400 } });
    expect(await reader.next()).toBeUndefined();
    expect((await watch.closed)?.code).toBe('AGENT_MESSAGE_INVALID');
  });

  it('answers a line longer than lineBytesMax with a 413 and id null, then closes', async () => {
    const { reader, send, watch } = await fixtures.endpointWithRawAgent(() => 'pong', { lineBytesMax: 1024 });
    send('{"v":"1"'.padEnd(3000, ' '));
    expect(await reader.next()).toMatchObject({ id: null, result: null, error: { code: 413, type: 'AGENT_LINE_TOO_LONG' } });
    expect(await reader.next()).toBeUndefined();
    expect((await watch.closed)?.code).toBe('AGENT_LINE_TOO_LONG');
  });
});

describe('RpcPeer line bound changes and answers that cannot be written', () => {
  it('reads and writes longer lines after setLineBytesMax, a line already partly read included', async () => {
    const { reader, send, endpoint, watch } = await fixtures.endpointWithRawAgent((_method, params) => params, { lineBytesMax: 1024 });
    const line = requestLine(1, 'config_file.post', { pad: 'p'.repeat(3000) });
    send(line.slice(0, 900));
    await sleep(20);
    endpoint.setLineBytesMax(8192);
    send(line.slice(900));
    // The answer echoes the 3,000-byte pad: the bound of what it writes rose too.
    expect(await reader.next()).toMatchObject({ id: 1, result: { pad: 'p'.repeat(3000) }, error: null });
    send(`${'x'.repeat(9000)}\n`);
    expect(await reader.next()).toMatchObject({ id: null, error: { code: 413, type: 'AGENT_LINE_TOO_LONG' } });
    expect((await watch.closed)?.details).toEqual({ lineBytesMax: 8192 });
  });

  it('answers a result JSON cannot hold with a 500 and closes, rather than leave an unhandled rejection', async () => {
    const { reader, send, watch } = await fixtures.endpointWithRawAgent((method) => (method === 'bad' ? { n: 1n } : 'pong'));
    send(requestLine(1, 'heartbeat.post'));
    expect(await reader.next()).toMatchObject({ id: 1, result: 'pong' });
    send(requestLine(2, 'bad'));
    expect(await reader.next()).toMatchObject({ id: 2, result: null, error: { code: 500, type: 'INTERNAL' } });
    expect(await reader.next()).toBeUndefined();
    expect((await watch.closed)?.code).toBe('INTERNAL');
  });
});

describe('RpcPeer bounds', () => {
  it('closes with AGENT_PEER_TOO_SLOW when a peer that never reads leaves more than writeBufferBytesMax unsent', async () => {
    const pair = await fixtures.connected();
    pair.server.pause();
    const watch = closeWatch();
    const agent = new RpcPeer({ socket: pair.client, self: 'agentA', peer: 'endpoint', onRequest: () => ({}), onClose: watch.onClose, writeBufferBytesMax: SLOW_BUFFER_BYTES, pendingRequestsMax: 100_000 });
    const requests: Promise<unknown>[] = [];
    // Each line fits the write buffer alone; loopback socket buffers take some megabytes before it starts to fill.
    for (let i = 0; i < 20_000 && !agent.closed; i++) {
      requests.push(agent.request('check_metrics.post', { pad: SLOW_PAD }).catch((error: unknown) => error));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(agent.closed).toBe(true);
    expect((await watch.closed)?.code).toBe('AGENT_PEER_TOO_SLOW');
    const codes = (await Promise.all(requests)).map((error) => (error as StrataError).code);
    expect(codes.length).toBeGreaterThan(1);
    expect(codes.at(-1)).toBe('AGENT_PEER_TOO_SLOW');
    expect(codes.slice(0, -1).every((code) => code === 'AGENT_CONNECTION_CLOSED')).toBe(true);
  });

  it('keeps a peer that reads under the same write buffer bound', async () => {
    const { agent } = await fixtures.peerPair(() => 'ok', { writeBufferBytesMax: SLOW_BUFFER_BYTES });
    for (let i = 0; i < 200; i++) expect(await agent.request('check_metrics.post', { pad: SLOW_PAD })).toBe('ok');
    expect(agent.closed).toBe(false);
  });

  it('refuses a request beyond pendingRequestsMax waiting for responses with AGENT_PEER_TOO_SLOW and closes', async () => {
    const { agent, agentWatch } = await fixtures.peerPair(never, { pendingRequestsMax: 3 });
    const pending = [0, 1, 2].map((i) => agent.request('m', { i }));
    const error = await rejection(agent.request('m', { i: 3 }));
    expect(error.code).toBe('AGENT_PEER_TOO_SLOW');
    expect((await agentWatch.closed)?.code).toBe('AGENT_PEER_TOO_SLOW');
    for (const promise of pending) expect((await rejection(promise)).code).toBe('AGENT_CONNECTION_CLOSED');
  });

  it('runs at most pendingRequestsMax of the peer requests in its handler at once, reading the rest later', async () => {
    let active = 0;
    let activeMax = 0;
    const held: (() => void)[] = [];
    const { agent, endpoint } = await fixtures.peerPair(
      (_method, params) =>
        new Promise((resolve) => {
          active++;
          activeMax = Math.max(activeMax, active);
          held.push(() => {
            active--;
            resolve(params);
          });
        }),
      {},
      { pendingRequestsMax: 2 },
    );
    const results = Promise.all([0, 1, 2, 3, 4].map((i) => agent.request('m', { i })));
    for (let released = 0; released < 5; released++) {
      // Both slots fill before each release while two or more requests are left (the peer reads the
      // rest however late they arrive): activeMax then proves the bound was reached, not just kept.
      const expected = Math.min(2, 5 - released);
      await vi.waitFor(() => expect(active).toBe(expected), { timeout: 5_000, interval: 2 });
      // Give the peer every chance to (wrongly) start a third before one is released.
      await sleep(10);
      expect(held).toHaveLength(expected);
      held.shift()?.();
    }
    expect(await results).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
    expect(activeMax).toBe(2);
    expect(endpoint.messagesIn).toBe(5);
  });

  it('still reads responses while pendingRequestsMax of the peer requests are in its handler and fewer wait', async () => {
    const { agent, endpoint } = await fixtures.peerPair(never, { onRequest: () => 'from agent' }, { pendingRequestsMax: 2 });
    for (const method of ['held', 'held', 'waiting']) void agent.request(method, {}).catch(() => undefined);
    while (endpoint.messagesIn < 3) await sleep(1);
    expect(await endpoint.request('check_schedule.changed', {})).toBe('from agent');
  });
});
