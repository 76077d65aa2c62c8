// Owns the RpcPeer tests' fixtures: peers over fresh TLS pairs on 127.0.0.1, a raw side that writes lines, and onClose watchers.
import { afterEach, beforeAll, expect } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { RpcPeer, type RpcPeerOptions } from '../../../src/agent/protocol/rpc-peer.js';
import { LineReader, selfSignedTls, tlsPair, type TestTlsMaterial, type TlsPair } from './tls-pair.js';

/** What onClose saw: every call, and the first one's error. */
export interface CloseWatch {
  readonly onClose: (error: StrataError | undefined) => void;
  readonly calls: (StrataError | undefined)[];
  readonly closed: Promise<StrataError | undefined>;
}

/** A request handler of an RpcPeer. */
export type Handler = RpcPeerOptions['onRequest'];

/** Makes TLS pairs for one test file: a certificate made once, every pair closed after each test (registers the hooks). */
export class PeerFixtures {
  private material: TestTlsMaterial | undefined;
  private readonly pairs: TlsPair[] = [];

  constructor() {
    beforeAll(() => {
      this.material = selfSignedTls();
    });
    afterEach(async () => {
      await Promise.all(this.pairs.splice(0).map((pair) => pair.close()));
    });
  }

  /** A new connected TLS pair, closed after the test. */
  async connected(): Promise<TlsPair> {
    if (this.material === undefined) throw new Error('PeerFixtures used outside a test');
    const pair = await tlsPair(this.material);
    this.pairs.push(pair);
    return pair;
  }

  /** An endpoint peer on the server end of a new TLS pair, and the raw client end to speak for the agent. */
  async endpointWithRawAgent(onRequest: Handler, options: Partial<RpcPeerOptions> = {}) {
    const pair = await this.connected();
    const watch = closeWatch();
    const endpoint = new RpcPeer({ socket: pair.server, self: 'endpoint', peer: 'agentA', onRequest, onClose: watch.onClose, ...options });
    return { pair, endpoint, watch, reader: new LineReader(pair.client), send: (text: string) => pair.client.write(text) };
  }

  /** Two peers over a new TLS pair: the agent on the client end, the endpoint on the server end. */
  async peerPair(endpointHandler: Handler, agentOptions: Partial<RpcPeerOptions> = {}, endpointOptions: Partial<RpcPeerOptions> = {}) {
    const pair = await this.connected();
    const agentWatch = closeWatch();
    const endpointWatch = closeWatch();
    const agent = new RpcPeer({ socket: pair.client, self: 'agentA', peer: 'endpoint', onRequest: () => ({}), onClose: agentWatch.onClose, ...agentOptions });
    const endpoint = new RpcPeer({ socket: pair.server, self: 'endpoint', peer: 'agentA', onRequest: endpointHandler, onClose: endpointWatch.onClose, ...endpointOptions });
    return { pair, agent, endpoint, agentWatch, endpointWatch };
  }
}

/** Records the calls of onClose and resolves with the first one's error. */
export function closeWatch(): CloseWatch {
  const calls: (StrataError | undefined)[] = [];
  let resolve: (error: StrataError | undefined) => void = () => undefined;
  const closed = new Promise<StrataError | undefined>((r) => (resolve = r));
  const onClose = (error: StrataError | undefined): void => {
    calls.push(error);
    resolve(error);
  };
  return { calls, closed, onClose };
}

/** A request line as the agent would send it. */
export function requestLine(id: unknown, method: string, params: unknown = {}): string {
  return `${JSON.stringify({ v: '1', id, source: 'agentA', target: 'endpoint', method, params })}\n`;
}

/** The StrataError a promise rejects with (fails the test when it resolves or rejects with something else). */
export async function rejection(promise: Promise<unknown>): Promise<StrataError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(StrataError);
  return error as StrataError;
}

/** A handler that never answers. */
export const never = (): Promise<unknown> => new Promise(() => undefined);

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
