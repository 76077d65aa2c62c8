// Tests RpcPeer over real TLS connections on 127.0.0.1: request/response matching, refusals, timeouts and closing.
import { describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { RpcPeer } from '../../../src/agent/protocol/rpc-peer.js';
import type { RequestMessage } from '../../../src/agent/protocol/messages.js';
import { LineReader } from './tls-pair.js';
import { PeerFixtures, never, rejection, requestLine, sleep } from './rpc-peer-harness.js';

const fixtures = new PeerFixtures();

describe('RpcPeer requests and responses', () => {
  it('matches concurrent responses to their requests, ids counting up from 0, with source and target set', async () => {
    const seen: RequestMessage[] = [];
    const { agent } = await fixtures.peerPair(async (method, params, request) => {
      seen.push(request);
      const n = (params as { n: number }).n;
      // Answer in the reverse order of arrival.
      await sleep((5 - n) * 5);
      return { method, n };
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => agent.request('heartbeat.post', { n })));
    expect(results).toEqual([1, 2, 3, 4].map((n) => ({ method: 'heartbeat.post', n })));
    expect(seen.map((r) => r.id).sort()).toEqual([0, 1, 2, 3]);
    expect(seen.every((r) => r.v === '1' && r.source === 'agentA' && r.target === 'endpoint')).toBe(true);
  });

  it('answers a request with a string id with that id, and an undefined result with {}', async () => {
    const { reader, send, endpoint } = await fixtures.endpointWithRawAgent(() => undefined);
    send(requestLine('44391', 'heartbeat.post', { timestamp: 1 }));
    expect(await reader.next()).toEqual({ v: '1', id: '44391', source: 'endpoint', target: 'agentA', result: {}, error: null });
    expect(endpoint.messagesIn).toBe(1);
  });

  it('matches a response that echoes a numeric id as a string, and drops responses to unknown ids', async () => {
    const pair = await fixtures.connected();
    const agent = new RpcPeer({ socket: pair.client, self: 'agentA', peer: 'endpoint', onRequest: () => ({}) });
    const endpointSide = new LineReader(pair.server);
    const answer = agent.request('handshake.hello', {});
    const request = await endpointSide.next();
    const respond = (id: unknown, result: unknown) => pair.server.write(`${JSON.stringify({ v: '1', id, source: 'endpoint', target: 'agentA', result, error: null })}\n`);
    respond(999, { unknown: true });
    pair.server.write(`${JSON.stringify({ v: '1', id: null, source: 'endpoint', target: 'agentA', result: null, error: { code: 400, message: 'x' } })}\n`);
    respond(String(request?.id), { heartbeat_interval: 1000 });
    expect(await answer).toEqual({ heartbeat_interval: 1000 });
    expect(agent.closed).toBe(false);
    expect(agent.messagesIn).toBe(3);
  });

  it('rejects with AGENT_REQUEST_REFUSED carrying the error object when the peer answers with an error, and keeps the connection on a 400', async () => {
    let calls = 0;
    const { agent } = await fixtures.peerPair(() => {
      calls++;
      if (calls === 1) throw new StrataError('AGENT_METHOD_UNKNOWN', 'no such method: system.info');
      return { ok: true };
    });
    const error = await rejection(agent.request('system.info', {}));
    expect(error.code).toBe('AGENT_REQUEST_REFUSED');
    expect(error.details).toEqual({ code: 400, message: 'no such method: system.info', type: 'AGENT_METHOD_UNKNOWN' });
    expect(await agent.request('heartbeat.post', {})).toEqual({ ok: true });
  });

  it('rejects with AGENT_REQUEST_TIMEOUT when no response comes, and drops the late one', async () => {
    let release: (value: unknown) => void = () => undefined;
    const { agent } = await fixtures.peerPair((method) => (method === 'slow' ? new Promise((resolve) => (release = resolve)) : 'fast'));
    const error = await rejection(agent.request('slow', {}, 20));
    expect(error.code).toBe('AGENT_REQUEST_TIMEOUT');
    expect(error.details).toMatchObject({ method: 'slow', timeoutMs: 20 });
    release('late');
    expect(await agent.request('quick', {})).toBe('fast');
    expect(agent.closed).toBe(false);
  });

  it('sends to the name setPeer gives', async () => {
    const seen: RequestMessage[] = [];
    const { endpoint } = await fixtures.peerPair(() => ({}), { onRequest: (_m, _p, request) => (seen.push(request), 0) });
    endpoint.setPeer('6f1c-guid');
    expect(await endpoint.request('check_schedule.changed', {})).toBe(0);
    expect(seen[0]).toMatchObject({ source: 'endpoint', target: '6f1c-guid', method: 'check_schedule.changed', id: 0 });
  });

  it('refuses an outgoing request longer than lineBytesMax with AGENT_LINE_TOO_LONG and keeps the connection', async () => {
    const { agent } = await fixtures.peerPair(() => 'ok', { lineBytesMax: 1024 });
    expect((await rejection(agent.request('big', { pad: 'x'.repeat(2000) }))).code).toBe('AGENT_LINE_TOO_LONG');
    expect(await agent.request('small', {})).toBe('ok');
  });
});

describe('RpcPeer closing', () => {
  it('rejects pending requests with AGENT_CONNECTION_CLOSED when either side closes, calls onClose once, and refuses new requests', async () => {
    const { agent, endpoint, agentWatch, endpointWatch } = await fixtures.peerPair(never);
    const pending = [agent.request('a', {}), agent.request('b', {})];
    // Both requests are in the endpoint's handler before it closes.
    while (endpoint.messagesIn < 2) await sleep(1);
    endpoint.close();
    endpoint.close();
    for (const promise of pending) expect((await rejection(promise)).code).toBe('AGENT_CONNECTION_CLOSED');
    expect(await agentWatch.closed).toBeUndefined();
    expect(agent.closed).toBe(true);
    expect(endpointWatch.calls).toEqual([undefined]);
    expect(agentWatch.calls).toEqual([undefined]);
    expect((await rejection(agent.request('c', {}))).code).toBe('AGENT_CONNECTION_CLOSED');
  });

  it('closes on a socket error, rejecting what is pending', async () => {
    const { pair, agent, agentWatch } = await fixtures.peerPair(never);
    const pending = agent.request('a', {});
    pair.client.destroy(new Error('boom'));
    const error = await agentWatch.closed;
    expect(error?.code).toBe('AGENT_CONNECTION_CLOSED');
    expect(error?.message).toContain('boom');
    expect((await rejection(pending)).code).toBe('AGENT_CONNECTION_CLOSED');
  });

  it('answers a handler throwing an unauthenticated StrataError with a 401 error, then closes', async () => {
    const { reader, send, watch } = await fixtures.endpointWithRawAgent(() => {
      throw new StrataError('AGENT_HANDSHAKE_REQUIRED', 'handshake.hello first');
    });
    send(requestLine(7, 'check_schedule.get'));
    expect(await reader.next()).toEqual({ v: '1', id: 7, source: 'endpoint', target: 'agentA', result: null, error: { code: 401, message: 'handshake.hello first', type: 'AGENT_HANDSHAKE_REQUIRED' } });
    expect(await reader.next()).toBeUndefined();
    expect((await watch.closed)?.code).toBe('AGENT_HANDSHAKE_REQUIRED');
  });

  it('answers a handler throwing anything else with a 500 INTERNAL error that leaks nothing, then closes', async () => {
    const { reader, send, watch } = await fixtures.endpointWithRawAgent(() => {
      throw new TypeError('secret detail');
    });
    send(requestLine(1, 'heartbeat.post'));
    const answer = await reader.next();
    expect(answer?.error).toEqual({ code: 500, message: 'heartbeat.post failed', type: 'INTERNAL' });
    expect(JSON.stringify(answer)).not.toContain('secret');
    expect(await reader.next()).toBeUndefined();
    expect((await watch.closed)?.code).toBe('INTERNAL');
  });

  it('reads bytes its owner looked at first and gave back with unshift', async () => {
    const pair = await fixtures.connected();
    const first = new Promise<Buffer>((resolve) => pair.server.once('data', resolve));
    pair.client.write(requestLine(3, 'heartbeat.post'));
    const chunk = await first;
    pair.server.pause();
    pair.server.unshift(chunk);
    new RpcPeer({ socket: pair.server, self: 'endpoint', peer: 'agentA', onRequest: () => 'sniffed' });
    expect(await new LineReader(pair.client).next()).toMatchObject({ id: 3, result: 'sniffed' });
  });
});
